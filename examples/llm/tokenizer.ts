// Text <-> token ids for the Llama example. No tokenizer library is installed in this project (the
// npm package we would use for a checkpoint's tokenizer.json is @huggingface/tokenizers), so this is
// the byte-level fallback: a string is its UTF-8 bytes and token id = byte value (0..255). That is
// exact for byte-vocabulary models such as the tiny test model, and NOT the checkpoint's own
// tokenizer for a real Llama: with one, tokenize in your own code and pass token ids (`--tokens`).
import { TesseraError } from '../../src/index.js';

export class TokenizerError extends TesseraError {}

export interface Tokenizer {
  readonly kind: 'bytes';
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** The byte-level tokenizer for a vocabulary of at least 256 ids. */
export function byteTokenizer(vocabSize: number): Tokenizer {
  if (vocabSize < 256) throw new TokenizerError('E_TOKENIZER', `the byte-level tokenizer needs a vocabulary of at least 256 ids, the model has ${vocabSize}`);
  return {
    kind: 'bytes',
    encode: (text) => [...new TextEncoder().encode(text)],
    decode: (ids) => {
      const bad = ids.find((i) => !Number.isInteger(i) || i < 0 || i > 255);
      if (bad !== undefined) throw new TokenizerError('E_TOKENIZER', `token id ${bad} is not a byte (0..255): the byte-level tokenizer cannot decode it`);
      return new TextDecoder().decode(new Uint8Array(ids));
    },
  };
}

// Which mma.sync instruction a dot can use, as data: input dtype (and inputPrecision) -> the
// instruction shape and operand types, and the dot accumulator dtypes each one can feed. The
// layout pass and the codegen both read this table (through mmaKindOf), so they cannot disagree.
import type { Op } from '../ir/ops.js';

/** One mma.sync form (all are m16n8kK, row.col; fragment layouts from the PTX ISA). */
export interface MmaKind {
  /** PTX type of the a/b operands. */
  readonly input: 'f16' | 'bf16' | 'tf32' | 's8' | 'u8';
  /** k of the instruction: 16 (16-bit inputs), 8 (tf32), 32 (8-bit inputs). */
  readonly k: number;
  /** Bytes of one a/b element in shared memory (every kind reads 32 bytes of a row per k-step). */
  readonly bytes: number;
  /** PTX type of the mma's C/D fragments for this dot. */
  readonly acc: 'f32' | 'f16' | 's32';
}

interface Entry {
  readonly input: MmaKind['input'];
  readonly k: number;
  readonly bytes: number;
  /** dot accumulator dtype -> mma accumulator type (absent: the dot stays on FMA). */
  readonly accs: Readonly<Record<string, MmaKind['acc']>>;
}

// Half accumulators the instruction has no form for are widened to f32 for the dot and rounded
// once at its end (bf16 always; f16 with bf16 or tf32 inputs). s32 covers u32 bit for bit.
const HALF: Entry['accs'] = { f32: 'f32', f16: 'f32', bf16: 'f32' };
const TABLE: Readonly<Record<string, Entry>> = {
  f16: { input: 'f16', k: 16, bytes: 2, accs: { f32: 'f32', f16: 'f16', bf16: 'f32' } },
  bf16: { input: 'bf16', k: 16, bytes: 2, accs: HALF },
  // f32 inputs only with inputPrecision 'tf32' (mmaKindOf); 'ieee' stays exact on FMA
  f32: { input: 'tf32', k: 8, bytes: 4, accs: HALF },
  i8: { input: 's8', k: 32, bytes: 1, accs: { i32: 's32', u32: 's32' } },
  u8: { input: 'u8', k: 32, bytes: 1, accs: { i32: 's32', u32: 's32' } },
};

/**
 * The mma form for a dot with inputs `ta`, `tb`, accumulator `tc` and `inputPrecision`, or
 * undefined when no tensor-core instruction computes it (f64, f32 'ieee', wide ints, mixed
 * inputs, an accumulator the instruction cannot feed). Shapes are checked by mmaLayoutForDot.
 */
export function mmaKindOf(ta: string, tb: string, tc: string, inputPrecision: string): MmaKind | undefined {
  if (ta !== tb) return undefined;
  if (ta === 'f32' && inputPrecision !== 'tf32') return undefined;
  const e = TABLE[ta];
  const acc = e?.accs[tc];
  return e && acc ? { input: e.input, k: e.k, bytes: e.bytes, acc } : undefined;
}

/** A dot op's inputPrecision attribute ('ieee' when absent). */
export const dotInputPrecision = (op: Op): string => (op.attrs as { inputPrecision?: string }).inputPrecision ?? 'ieee';

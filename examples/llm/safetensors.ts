// A reader for the safetensors format (Hugging Face's checkpoint files), with the format's checks:
//   [8 bytes: N, u64 little-endian] [N bytes: a JSON header] [the data buffer]
// The header maps each tensor name to { dtype, shape, data_offsets: [begin, end] } (offsets into the
// data buffer) and may hold "__metadata__" (string -> string). The format requires that the tensors
// cover the data buffer exactly: no overlaps, no holes. Every violation is a SafetensorsError with a
// code naming it, thrown when the file is opened, before any tensor is read. Tensors are read from
// the file on demand (a checkpoint can be larger than we want in memory at once).
// Sharded checkpoints: `model.safetensors.index.json` ({ weight_map: { name: file } }) -> openCheckpoint.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { TesseraError } from '../../src/index.js';

export class SafetensorsError extends TesseraError {}

/** Header size limit (as Hugging Face's own reader): a larger N is a corrupt or hostile file. */
export const MAX_HEADER_BYTES = 100_000_000;

/** The format's dtype names and their item sizes. We read the float ones into tensors. */
export const ST_DTYPE_BYTES: Readonly<Record<string, number>> = {
  F64: 8, F32: 4, F16: 2, BF16: 2, F8_E4M3: 1, F8_E5M2: 1, I64: 8, I32: 4, I16: 2, I8: 1, U64: 8, U32: 4, U16: 2, U8: 1, BOOL: 1,
};

export type StDType = 'F32' | 'F16' | 'BF16';

export interface TensorInfo {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Byte offsets into the data buffer, [begin, end). */
  readonly begin: number;
  readonly end: number;
}

/** A tensor's raw little-endian bytes with its dtype and shape. */
export interface RawTensor {
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

const fail = (code: string, file: string, msg: string): never => {
  throw new SafetensorsError(code, `${basename(file)}: ${msg}`);
};

/** One .safetensors file, its header checked. Call close() when done. */
export class SafetensorsFile {
  readonly tensors: ReadonlyMap<string, TensorInfo>;
  readonly metadata: Readonly<Record<string, string>>;
  readonly #fd: number;
  /** Where the data buffer starts in the file (8 + N). */
  readonly #dataStart: number;
  #closed = false;

  private constructor(readonly path: string, fd: number, dataStart: number, tensors: Map<string, TensorInfo>, metadata: Record<string, string>) {
    this.#fd = fd;
    this.#dataStart = dataStart;
    this.tensors = tensors;
    this.metadata = metadata;
  }

  static open(path: string): SafetensorsFile {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      throw new SafetensorsError('E_SAFETENSORS_IO', `cannot open ${path}: ${(e as Error).message}`);
    }
    try {
      const size = fstatSync(fd).size;
      const { dataStart, tensors, metadata } = parseHeader(path, size, (pos, n) => {
        const b = new Uint8Array(n);
        const got = readSync(fd, b, 0, n, pos);
        if (got !== n) fail('E_SAFETENSORS_TRUNCATED', path, `short read at byte ${pos}`);
        return b;
      });
      return new SafetensorsFile(path, fd, dataStart, tensors, metadata);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  info(name: string): TensorInfo {
    const t = this.tensors.get(name);
    if (!t) return fail('E_SAFETENSORS_MISSING', this.path, `no tensor named ${JSON.stringify(name)}`);
    return t;
  }

  /** The tensor's bytes, read from the file now. */
  read(name: string): RawTensor {
    if (this.#closed) fail('E_SAFETENSORS_IO', this.path, 'read after close()');
    const t = this.info(name);
    const bytes = new Uint8Array(t.end - t.begin);
    let done = 0;
    while (done < bytes.length) {
      const got = readSync(this.#fd, bytes, done, bytes.length - done, this.#dataStart + t.begin + done);
      if (got <= 0) fail('E_SAFETENSORS_TRUNCATED', this.path, `short read in tensor ${name}`);
      done += got;
    }
    return { dtype: t.dtype, shape: t.shape, bytes };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Parses and checks the header of a file of `size` bytes; `read(pos, n)` reads bytes from it. */
export function parseHeader(
  path: string, size: number, read: (pos: number, n: number) => Uint8Array,
): { dataStart: number; tensors: Map<string, TensorInfo>; metadata: Record<string, string> } {
  if (size < 8) fail('E_SAFETENSORS_TRUNCATED', path, `${size} bytes: too short for the 8-byte header length`);
  const nBig = new DataView(read(0, 8).buffer).getBigUint64(0, true);
  if (nBig < 2n || nBig > BigInt(MAX_HEADER_BYTES)) fail('E_SAFETENSORS_HEADER', path, `header length ${nBig} is outside [2, ${MAX_HEADER_BYTES}]`);
  const n = Number(nBig);
  if (8 + n > size) fail('E_SAFETENSORS_HEADER', path, `header length ${n} runs past the end of the ${size}-byte file`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(read(8, n)));
  } catch (e) {
    fail('E_SAFETENSORS_HEADER', path, `header is not UTF-8 JSON: ${(e as Error).message}`);
  }
  if (!isObject(header)) return fail('E_SAFETENSORS_HEADER', path, 'header is not a JSON object');
  const dataStart = 8 + n;
  const dataLen = size - dataStart;
  const tensors = new Map<string, TensorInfo>();
  let metadata: Record<string, string> = {};
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (!isObject(v) || !Object.values(v).every((x) => typeof x === 'string')) fail('E_SAFETENSORS_HEADER', path, '__metadata__ must map strings to strings');
      metadata = v as Record<string, string>;
      continue;
    }
    if (!isObject(v)) return fail('E_SAFETENSORS_HEADER', path, `tensor ${name}: entry is not an object`);
    const { dtype, shape, data_offsets: offs } = v;
    if (typeof dtype !== 'string' || !(dtype in ST_DTYPE_BYTES)) fail('E_SAFETENSORS_DTYPE', path, `tensor ${name}: unknown dtype ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape) || !shape.every(isIndex)) return fail('E_SAFETENSORS_SHAPE', path, `tensor ${name}: shape must be a list of non-negative integers, got ${JSON.stringify(shape)}`);
    if (!Array.isArray(offs) || offs.length !== 2 || !offs.every(isIndex)) return fail('E_SAFETENSORS_OFFSETS', path, `tensor ${name}: data_offsets must be [begin, end], got ${JSON.stringify(offs)}`);
    const [begin, end] = offs as [number, number];
    if (begin > end) fail('E_SAFETENSORS_OFFSETS', path, `tensor ${name}: data_offsets [${begin}, ${end}] run backwards`);
    if (end > dataLen) fail('E_SAFETENSORS_OFFSETS', path, `tensor ${name}: data_offsets [${begin}, ${end}] run past the ${dataLen}-byte data buffer`);
    const span = shape.reduce((a: number, d: number) => a * d, 1) * ST_DTYPE_BYTES[dtype as string]!;
    if (span !== end - begin) fail('E_SAFETENSORS_SHAPE', path, `tensor ${name}: ${dtype}[${shape.join(', ')}] is ${span} bytes but data_offsets [${begin}, ${end}] span ${end - begin}`);
    tensors.set(name, { name, dtype: dtype as string, shape, begin, end });
  }
  // The tensors must tile the data buffer: sorted by begin, each starts where the previous ended.
  let at = 0;
  let prev = '';
  for (const t of [...tensors.values()].sort((a, b) => a.begin - b.begin || a.end - b.end)) {
    if (t.begin < at) fail('E_SAFETENSORS_OVERLAP', path, `tensor ${t.name} [${t.begin}, ${t.end}) overlaps ${prev} (ends at ${at})`);
    if (t.begin > at) fail('E_SAFETENSORS_HOLE', path, `bytes [${at}, ${t.begin}) of the data buffer belong to no tensor`);
    at = t.end;
    prev = t.name;
  }
  if (at !== dataLen) fail('E_SAFETENSORS_HOLE', path, `bytes [${at}, ${dataLen}) at the end of the data buffer belong to no tensor`);
  return { dataStart, tensors, metadata };
}

/** All the tensors of a checkpoint directory: one model.safetensors, or shards with an index. */
export class Checkpoint {
  readonly #files: SafetensorsFile[];
  readonly #where = new Map<string, SafetensorsFile>();

  private constructor(files: SafetensorsFile[], where: Map<string, SafetensorsFile>) {
    this.#files = files;
    this.#where = where;
  }

  get names(): string[] { return [...this.#where.keys()]; }
  has(name: string): boolean { return this.#where.has(name); }

  info(name: string): TensorInfo {
    const f = this.#where.get(name);
    if (!f) throw new SafetensorsError('E_SAFETENSORS_MISSING', `the checkpoint has no tensor named ${JSON.stringify(name)}`);
    return f.info(name);
  }

  read(name: string): RawTensor {
    this.info(name);
    return this.#where.get(name)!.read(name);
  }

  close(): void {
    for (const f of this.#files) f.close();
  }

  /**
   * Opens `dir/model.safetensors.index.json` (shards) when present, else `dir/model.safetensors`,
   * or a single .safetensors file given directly.
   */
  static open(dirOrFile: string): Checkpoint {
    const p = resolve(dirOrFile);
    if (p.endsWith('.safetensors')) return Checkpoint.#single(p);
    const index = join(p, 'model.safetensors.index.json');
    if (existsSync(index)) return Checkpoint.#sharded(index);
    const single = join(p, 'model.safetensors');
    if (existsSync(single)) return Checkpoint.#single(single);
    throw new SafetensorsError('E_SAFETENSORS_IO', `${p} has neither model.safetensors nor model.safetensors.index.json`);
  }

  static #single(path: string): Checkpoint {
    const f = SafetensorsFile.open(path);
    return new Checkpoint([f], new Map([...f.tensors.keys()].map((k) => [k, f])));
  }

  static #sharded(index: string): Checkpoint {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(index, 'utf8'));
    } catch (e) {
      throw new SafetensorsError('E_SAFETENSORS_INDEX', `${basename(index)}: not JSON: ${(e as Error).message}`);
    }
    const map = isObject(json) ? json.weight_map : undefined;
    if (!isObject(map) || Object.keys(map).length === 0) throw new SafetensorsError('E_SAFETENSORS_INDEX', `${basename(index)}: no weight_map`);
    const dir = dirname(index);
    const files = new Map<string, SafetensorsFile>();
    const where = new Map<string, SafetensorsFile>();
    try {
      for (const [name, file] of Object.entries(map)) {
        // shard names are plain file names beside the index: nothing that leaves the directory
        if (typeof file !== 'string' || file !== basename(file) || !file.endsWith('.safetensors')) {
          throw new SafetensorsError('E_SAFETENSORS_INDEX', `${basename(index)}: tensor ${name} maps to ${JSON.stringify(file)}, not a .safetensors file beside the index`);
        }
        let f = files.get(file);
        if (!f) files.set(file, (f = SafetensorsFile.open(join(dir, file))));
        if (!f.tensors.has(name)) throw new SafetensorsError('E_SAFETENSORS_INDEX', `${basename(index)}: tensor ${name} is not in ${file}`);
        where.set(name, f);
      }
      for (const [file, f] of files) {
        for (const name of f.tensors.keys()) {
          if (where.get(name) !== f) throw new SafetensorsError('E_SAFETENSORS_INDEX', `${basename(index)}: ${file} holds ${name}, which the weight_map puts elsewhere or omits`);
        }
      }
    } catch (e) {
      for (const f of files.values()) f.close();
      throw e;
    }
    return new Checkpoint([...files.values()], where);
  }
}

/** Writes a safetensors file's bytes (tests and tools): tensors in the order given, packed. */
export function encodeSafetensors(tensors: Record<string, RawTensor>, metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = metadata ? { __metadata__: metadata } : {};
  let at = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + t.bytes.length] };
    at += t.bytes.length;
  }
  const raw = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(raw.length + ((8 - (raw.length % 8)) % 8)).fill(0x20); // space-padded: data 8-byte aligned, as HF writes it
  head.set(raw);
  const out = new Uint8Array(8 + head.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let pos = 8 + head.length;
  for (const t of Object.values(tensors)) {
    out.set(t.bytes, pos);
    pos += t.bytes.length;
  }
  return out;
}

// The kernel-call descriptor: the opaque bytes of the generic `tessera_kernel_call` targets of
// native/xla_custom_call. It carries one compiled kernel (its PTX, and cubins when present), the
// launch geometry, and how the custom call's operands, results and constant scalars map to the
// kernel's parameters. The byte format (version 1) is specified in docs/xla.md; in short, all
// little-endian, in this order:
//   TesseraKernelCallHeader                  64 bytes
//   uint64 operand_bytes[num_operands]      size in bytes of each XLA operand buffer
//   uint64 result_bytes[num_results]        size in bytes of each XLA result buffer
//   TesseraKernelParam params[num_params]   one per kernel parameter, in parameter order
//   TesseraKernelImage images[num_images]   where each PTX / cubin image lies
//   entry name (entry_len bytes, no NUL), zero-padded to 8
//   image bytes, each at its offset (8-aligned), zero-padded to 8
import type { DType } from '../ir/types.js';
import { DescriptorError } from './errors.js';
import { bf16BitsOf, f16BitsOf } from './half_bits.js';
import { defineEnum, defineStruct } from './schema.js';

export const KERNEL_CALL_MAGIC = 0x314b5354; // bytes "TSK1"
export const KERNEL_CALL_VERSION = 1;

export const KernelParamKind = defineEnum('TesseraKernelParamKind', ['OPERAND', 'RESULT', 'SCALAR']);
export const KernelImageKind = defineEnum('TesseraKernelImageKind', ['PTX', 'CUBIN']);

export const KernelCallHeader = defineStruct('TesseraKernelCallHeader', [
  { name: 'magic', type: 'u32' },
  { name: 'version', type: 'u32' },
  { name: 'total_size', type: 'u32' },
  { name: 'grid', type: 'u32', count: 3 },
  { name: 'block', type: 'u32', count: 3 },
  { name: 'shared_bytes', type: 'u32' },
  { name: 'num_operands', type: 'u32' },
  { name: 'num_results', type: 'u32' },
  { name: 'num_params', type: 'u32' },
  { name: 'num_images', type: 'u32' },
  { name: 'entry_len', type: 'u32' },
  { name: 'flags', type: 'u32' },
] as const);

export const KernelParam = defineStruct('TesseraKernelParam', [
  { name: 'kind', type: KernelParamKind },
  { name: 'index', type: 'u32' },
  { name: 'size', type: 'u32' },
  { name: 'reserved', type: 'u32' },
  { name: 'value', type: 'u64' },
] as const);

export const KernelImage = defineStruct('TesseraKernelImage', [
  { name: 'kind', type: KernelImageKind },
  { name: 'arch', type: 'u32' },
  { name: 'offset', type: 'u32' },
  { name: 'size', type: 'u32' },
] as const);

/** Scalar dtypes a kernel parameter can have; the parameter ABI: 64-bit 8 bytes, f16/bf16 2, else 4. */
export type ScalarDType = DType;

export type KernelParamSpec =
  | { readonly kind: 'operand'; readonly index: number }
  | { readonly kind: 'result'; readonly index: number }
  | { readonly kind: 'scalar'; readonly dtype: ScalarDType; readonly value: number | bigint | boolean };

export interface KernelImageSpec {
  readonly kind: 'ptx' | 'cubin';
  /** Compute capability as major*10+minor: the PTX's `.target` (80 for sm_80), or the cubin's arch. */
  readonly arch: number;
  /** PTX text, or the cubin's bytes. */
  readonly data: string | Uint8Array;
}

export interface KernelCallSpec {
  readonly entry: string;
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  /** Dynamic shared memory bytes passed at launch. */
  readonly sharedBytes: number;
  /** Byte size of each operand buffer (the CPU target copies this much to the device). */
  readonly operandBytes: readonly number[];
  readonly resultBytes: readonly number[];
  readonly params: readonly KernelParamSpec[];
  readonly images: readonly KernelImageSpec[];
}

const NAME = 'TesseraKernelCall';
const LIMITS = { operands: 1024, results: 1024, params: 4096, images: 16, entry: 1024 };
const bad = (m: string): never => { throw new DescriptorError(NAME, m); };
const pad8 = (n: number): number => Math.ceil(n / 8) * 8;
const u32 = (v: number, what: string, min = 0): number =>
  Number.isInteger(v) && v >= min && v <= 0xffffffff ? v : bad(`${what} must be an integer in [${min}, 2^32), got ${v}`);

function scalarParam(dtype: ScalarDType, value: number | bigint | boolean, i: number): { size: number; value: bigint } {
  const v = typeof value === 'boolean' ? Number(value) : value;
  const num = (): number => (typeof v === 'bigint' ? Number(v) : v);
  const int = (lo: bigint, hi: bigint, size: number): { size: number; value: bigint } => {
    if (typeof v === 'number' && !Number.isInteger(v)) bad(`param ${i} (${dtype}) needs an integer, got ${v}`);
    const b = BigInt(v);
    if (b < lo || b > hi) bad(`param ${i} (${dtype}): ${b} is out of range`);
    return { size, value: BigInt.asUintN(size * 8, b) };
  };
  const f = new DataView(new ArrayBuffer(8));
  switch (dtype) {
    case 'f64': f.setFloat64(0, num(), true); return { size: 8, value: f.getBigUint64(0, true) };
    case 'f32': f.setFloat32(0, num(), true); return { size: 4, value: BigInt(f.getUint32(0, true)) };
    case 'f16': return { size: 2, value: BigInt(f16BitsOf(num())) };
    case 'bf16': return { size: 2, value: BigInt(bf16BitsOf(num())) };
    case 'i64': return int(-(1n << 63n), (1n << 63n) - 1n, 8);
    case 'i32': return int(-(1n << 31n), (1n << 31n) - 1n, 4);
    case 'i16': return int(-32768n, 32767n, 4);
    case 'i8': return int(-128n, 127n, 4);
    case 'u32': return int(0n, 0xffffffffn, 4);
    case 'u8': return int(0n, 255n, 4);
    case 'bool': return int(0n, 1n, 4);
  }
  return bad(`param ${i}: unknown scalar dtype '${String(dtype)}'`);
}

/** Packs a kernel-call descriptor; every count, index and size is checked first. */
export function packKernelCall(s: KernelCallSpec): Uint8Array {
  if (typeof s.entry !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(s.entry)) bad(`entry must be a PTX identifier, got '${String(s.entry)}'`);
  const entry = new TextEncoder().encode(s.entry);
  if (entry.length > LIMITS.entry) bad(`entry name is longer than ${LIMITS.entry} bytes`);
  const dims = (d: readonly number[], what: string): number[] =>
    Array.isArray(d) && d.length === 3 ? d.map((x, i) => u32(x, `${what}[${i}]`, 1)) : bad(`${what} must be [x, y, z]`);
  const grid = dims(s.grid, 'grid');
  const block = dims(s.block, 'block');
  if (block[0]! * block[1]! * block[2]! > 1024) bad(`block ${block.join('x')} has more than 1024 threads`);
  u32(s.sharedBytes, 'sharedBytes');
  if (s.operandBytes.length > LIMITS.operands) bad(`more than ${LIMITS.operands} operands`);
  if (s.resultBytes.length > LIMITS.results) bad(`more than ${LIMITS.results} results`);
  if (s.params.length > LIMITS.params) bad(`more than ${LIMITS.params} params`);
  if (s.images.length < 1 || s.images.length > LIMITS.images) bad(`needs 1..${LIMITS.images} images (PTX and/or cubins), got ${s.images.length}`);
  const sizes = (a: readonly number[], what: string): bigint[] =>
    a.map((n, i) => (Number.isSafeInteger(n) && n >= 0 ? BigInt(n) : bad(`${what}[${i}] must be a byte count, got ${n}`)));
  const operandBytes = sizes(s.operandBytes, 'operandBytes');
  const resultBytes = sizes(s.resultBytes, 'resultBytes');
  const params = s.params.map((p, i) => {
    if (p.kind === 'operand' || p.kind === 'result') {
      const n = p.kind === 'operand' ? operandBytes.length : resultBytes.length;
      if (!Number.isInteger(p.index) || p.index < 0 || p.index >= n) bad(`param ${i} names ${p.kind} ${p.index}, but there are ${n}`);
      return { kind: p.kind === 'operand' ? 'OPERAND' as const : 'RESULT' as const, index: p.index, size: 8, reserved: 0, value: 0n };
    }
    if (p.kind !== 'scalar') bad(`param ${i} has unknown kind '${String((p as { kind: unknown }).kind)}'`);
    const { size, value } = scalarParam(p.dtype, p.value, i);
    return { kind: 'SCALAR' as const, index: 0, size, reserved: 0, value };
  });
  const enc = new TextEncoder();
  const imageBytes = s.images.map((im, i) => {
    if (im.kind !== 'ptx' && im.kind !== 'cubin') bad(`image ${i} has unknown kind '${String(im.kind)}'`);
    u32(im.arch, `image ${i} arch`, 1);
    const b = typeof im.data === 'string' ? enc.encode(im.data) : im.data;
    if (!(b instanceof Uint8Array) || b.length === 0) bad(`image ${i} is empty`);
    if (im.kind === 'ptx' && typeof im.data !== 'string') bad(`image ${i}: PTX must be given as text`);
    if (im.kind === 'ptx' && b.includes(0)) bad(`image ${i}: PTX text contains a NUL byte`);
    return b;
  });

  let off = KernelCallHeader.size + 8 * (operandBytes.length + resultBytes.length);
  const paramsAt = off;
  off += KernelParam.size * params.length;
  const imagesAt = off;
  off += KernelImage.size * imageBytes.length;
  const entryAt = off;
  off = pad8(off + entry.length);
  const dataAt = imageBytes.map((b) => { const at = off; off = pad8(off + b.length); return at; });
  if (off > 0xffffffff) bad(`descriptor would be ${off} bytes (at most 2^32 - 1)`);

  const out = new Uint8Array(off);
  const view = new DataView(out.buffer);
  KernelCallHeader.packInto({
    magic: KERNEL_CALL_MAGIC, version: KERNEL_CALL_VERSION, total_size: off, grid, block, shared_bytes: s.sharedBytes,
    num_operands: operandBytes.length, num_results: resultBytes.length, num_params: params.length,
    num_images: imageBytes.length, entry_len: entry.length, flags: 0,
  }, view, 0);
  [...operandBytes, ...resultBytes].forEach((n, i) => view.setBigUint64(KernelCallHeader.size + 8 * i, n, true));
  params.forEach((p, i) => KernelParam.packInto(p, view, paramsAt + i * KernelParam.size));
  s.images.forEach((im, i) => KernelImage.packInto(
    { kind: im.kind === 'ptx' ? 'PTX' : 'CUBIN', arch: im.arch, offset: dataAt[i]!, size: imageBytes[i]!.length }, view, imagesAt + i * KernelImage.size));
  out.set(entry, entryAt);
  imageBytes.forEach((b, i) => out.set(b, dataAt[i]!));
  return out;
}

export interface UnpackedKernelCall {
  readonly entry: string;
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
  readonly sharedBytes: number;
  readonly operandBytes: number[];
  readonly resultBytes: number[];
  readonly params: ({ kind: 'operand' | 'result'; index: number } | { kind: 'scalar'; size: number; bits: bigint })[];
  readonly images: { kind: 'ptx' | 'cubin'; arch: number; data: Uint8Array }[];
}

/** Reads a kernel-call descriptor back, with the same checks as the C library's reader. */
export function unpackKernelCall(bytes: Uint8Array): UnpackedKernelCall {
  if (!(bytes instanceof Uint8Array)) bad('unpack needs a Uint8Array');
  if (bytes.length < KernelCallHeader.size) bad(`is ${bytes.length} bytes, shorter than its ${KernelCallHeader.size}-byte header`);
  const h = KernelCallHeader.unpackAt(bytes, 0);
  if (h.magic !== KERNEL_CALL_MAGIC) bad(`bad magic 0x${h.magic.toString(16)} (want 0x${KERNEL_CALL_MAGIC.toString(16)}, "TSK1")`);
  if (h.version !== KERNEL_CALL_VERSION) bad(`version ${h.version} is not supported (want ${KERNEL_CALL_VERSION})`);
  if (h.total_size !== bytes.length) bad(`header says ${h.total_size} bytes, the buffer has ${bytes.length}`);
  if (h.num_operands > LIMITS.operands || h.num_results > LIMITS.results || h.num_params > LIMITS.params || h.num_images > LIMITS.images || h.num_images < 1) {
    bad('counts out of range');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let off = KernelCallHeader.size;
  const need = (n: number, what: string): void => { if (off + n > bytes.length) bad(`truncated: ${what} needs bytes ${off}..${off + n}, the buffer has ${bytes.length}`); };
  need(8 * (h.num_operands + h.num_results), 'buffer sizes');
  const sizes = Array.from({ length: h.num_operands + h.num_results }, (_, i) => Number(view.getBigUint64(off + 8 * i, true)));
  off += 8 * sizes.length;
  need(KernelParam.size * h.num_params, 'params');
  const params = Array.from({ length: h.num_params }, (_, i) => {
    const p = KernelParam.unpackAt(bytes, off + i * KernelParam.size);
    if (p.kind === 'SCALAR') {
      if (![1, 2, 4, 8].includes(p.size)) bad(`param ${i}: scalar size ${p.size} (want 1, 2, 4 or 8)`);
      return { kind: 'scalar' as const, size: p.size, bits: p.value };
    }
    const n = p.kind === 'OPERAND' ? h.num_operands : h.num_results;
    if (p.index >= n) bad(`param ${i} names ${p.kind.toLowerCase()} ${p.index}, but there are ${n}`);
    return { kind: p.kind === 'OPERAND' ? 'operand' as const : 'result' as const, index: p.index };
  });
  off += KernelParam.size * h.num_params;
  need(KernelImage.size * h.num_images, 'images');
  const images = Array.from({ length: h.num_images }, (_, i) => {
    const im = KernelImage.unpackAt(bytes, off + i * KernelImage.size);
    if (im.size === 0 || im.offset + im.size > bytes.length) bad(`image ${i} lies outside the descriptor`);
    return { kind: im.kind === 'PTX' ? 'ptx' as const : 'cubin' as const, arch: im.arch, data: bytes.subarray(im.offset, im.offset + im.size) };
  });
  off += KernelImage.size * h.num_images;
  if (h.entry_len === 0) bad('entry name is empty');
  need(h.entry_len, 'the entry name');
  const entry = new TextDecoder().decode(bytes.subarray(off, off + h.entry_len));
  const [g0, g1, g2] = h.grid as [number, number, number];
  const [b0, b1, b2] = h.block as [number, number, number];
  if (!g0 || !g1 || !g2 || !b0 || !b1 || !b2) bad('grid and block dimensions must be >= 1');
  return {
    entry, grid: [g0, g1, g2], block: [b0, b1, b2], sharedBytes: h.shared_bytes,
    operandBytes: sizes.slice(0, h.num_operands), resultBytes: sizes.slice(h.num_operands), params, images,
  };
}

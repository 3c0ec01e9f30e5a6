// Descriptor schemas: a C struct declared once in TypeScript. `defineStruct` lays the fields out
// with the C rules of the x86-64 / aarch64 Linux ABIs (each field at a multiple of its alignment,
// the size rounded up to the largest alignment, enums stored as `int`), and gives byte-exact
// `pack` / `unpack` in little-endian order. `cStruct` (c_struct.ts) prints the matching C
// declaration, so the C side and the TS side come from the same table.
import { DescriptorError } from './errors.js';

export type ScalarKind = 'i8' | 'u8' | 'i16' | 'u16' | 'i32' | 'u32' | 'i64' | 'u64' | 'f32' | 'f64';

/** A C enum: values are numbered from 0 in order; stored as a 4-byte `int`. */
export interface EnumDef<V extends string = string> {
  readonly enum: string;
  readonly values: readonly V[];
}

export type FieldType = ScalarKind | EnumDef;

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  /** A fixed-size array `type name[count]` (default: one element, no array). */
  readonly count?: number;
}

/** The JS value of one field: numbers (bigint for 64-bit integers), enum value names, arrays. */
type Elem<T extends FieldType> = T extends EnumDef<infer V> ? V : T extends 'i64' | 'u64' ? bigint : number;
type Input<T extends FieldType> = T extends EnumDef<infer V> ? V | number : T extends 'i64' | 'u64' ? bigint | number : number;
export type FieldValue<F extends FieldDef> = F extends { count: number } ? Elem<F['type']>[] : Elem<F['type']>;
export type FieldInput<F extends FieldDef> = F extends { count: number } ? readonly Input<F['type']>[] : Input<F['type']>;
export type StructValue<Fs extends readonly FieldDef[]> = { [F in Fs[number] as F['name']]: FieldValue<F> };
export type StructInput<Fs extends readonly FieldDef[]> = { [F in Fs[number] as F['name']]: FieldInput<F> };

export interface FieldLayout {
  readonly name: string;
  readonly type: FieldType;
  readonly count?: number;
  readonly offset: number;
  /** Bytes of one element. */
  readonly elemSize: number;
}

/** What C needs to know of a struct: its fields' offsets, its size and alignment. */
export interface StructLayout {
  readonly name: string;
  readonly fields: readonly FieldLayout[];
  readonly size: number;
  readonly align: number;
}

export interface StructSchema<Fs extends readonly FieldDef[] = readonly FieldDef[]> extends StructLayout {
  pack(value: StructInput<Fs>): Uint8Array;
  /** Writes into `view` at `offset` (for descriptors that embed the struct). */
  packInto(value: StructInput<Fs>, view: DataView, offset: number): void;
  unpack(bytes: Uint8Array): StructValue<Fs>;
  /** Reads the struct at `offset` of a larger buffer (bounds checked). */
  unpackAt(bytes: Uint8Array, offset: number): StructValue<Fs>;
}

const SIZES: Record<ScalarKind, number> = { i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8, f32: 4, f64: 8 };
const INT_RANGE: Partial<Record<ScalarKind, [number, number]>> = {
  i8: [-128, 127], u8: [0, 255], i16: [-32768, 32767], u16: [0, 65535], i32: [-2147483648, 2147483647], u32: [0, 4294967295],
};

export const isEnum = (t: FieldType): t is EnumDef => typeof t === 'object';
export const elemSize = (t: FieldType): number => (isEnum(t) ? 4 : SIZES[t]);

export function defineEnum<const V extends string>(name: string, values: readonly V[]): EnumDef<V> {
  if (!/^[A-Za-z_]\w*$/.test(name)) throw new DescriptorError(name, 'enum name must be a C identifier');
  if (values.length === 0) throw new DescriptorError(name, 'enum needs at least one value');
  for (const v of values) if (!/^[A-Za-z_]\w*$/.test(v)) throw new DescriptorError(name, `enum value '${v}' must be a C identifier`);
  if (new Set(values).size !== values.length) throw new DescriptorError(name, 'enum values must be distinct');
  return { enum: name, values: [...values] };
}

export function defineStruct<const Fs extends readonly FieldDef[]>(name: string, fields: Fs): StructSchema<Fs> {
  if (!/^[A-Za-z_]\w*$/.test(name)) throw new DescriptorError(name, 'struct name must be a C identifier');
  if (fields.length === 0) throw new DescriptorError(name, 'a struct needs at least one field');
  const seen = new Set<string>();
  const layout: FieldLayout[] = [];
  let off = 0;
  let align = 1;
  for (const f of fields) {
    if (!/^[A-Za-z_]\w*$/.test(f.name)) throw new DescriptorError(name, `field name '${f.name}' must be a C identifier`);
    if (seen.has(f.name)) throw new DescriptorError(name, `field '${f.name}' is declared twice`);
    seen.add(f.name);
    if (!isEnum(f.type) && !(f.type in SIZES)) throw new DescriptorError(name, `field '${f.name}' has unknown type '${String(f.type)}'`);
    if (f.count !== undefined && (!Number.isInteger(f.count) || f.count < 1)) throw new DescriptorError(name, `field '${f.name}' count must be a positive integer`);
    const sz = elemSize(f.type);
    off = Math.ceil(off / sz) * sz; // natural alignment: the element size for these types
    layout.push({ name: f.name, type: f.type, ...(f.count !== undefined ? { count: f.count } : {}), offset: off, elemSize: sz });
    off += sz * (f.count ?? 1);
    align = Math.max(align, sz);
  }
  const size = Math.ceil(off / align) * align;

  const packInto = (value: StructInput<Fs>, view: DataView, base: number): void => {
    const v = value as Record<string, unknown>;
    if (v === null || typeof v !== 'object') throw new DescriptorError(name, 'pack needs an object of field values');
    for (const k of Object.keys(v)) if (!seen.has(k)) throw new DescriptorError(name, `unknown field '${k}'`);
    for (const f of layout) {
      const x = v[f.name];
      if (x === undefined) throw new DescriptorError(name, `field '${f.name}' is missing`);
      if (f.count !== undefined) {
        if (!Array.isArray(x) || x.length !== f.count) throw new DescriptorError(name, `field '${f.name}' needs an array of ${f.count} values`);
        x.forEach((e, i) => writeElem(name, `${f.name}[${i}]`, f.type, e, view, base + f.offset + i * f.elemSize));
      } else writeElem(name, f.name, f.type, x, view, base + f.offset);
    }
  };
  const unpackAt = (bytes: Uint8Array, base: number): StructValue<Fs> => {
    if (!(bytes instanceof Uint8Array)) throw new DescriptorError(name, 'unpack needs a Uint8Array');
    if (base < 0 || base + size > bytes.length) {
      throw new DescriptorError(name, `needs ${size} bytes at offset ${base}, the buffer has ${bytes.length}`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out: Record<string, unknown> = {};
    for (const f of layout) {
      if (f.count !== undefined) out[f.name] = Array.from({ length: f.count }, (_, i) => readElem(name, `${f.name}[${i}]`, f.type, view, base + f.offset + i * f.elemSize));
      else out[f.name] = readElem(name, f.name, f.type, view, base + f.offset);
    }
    return out as StructValue<Fs>;
  };
  return {
    name,
    fields: layout,
    size,
    align,
    packInto,
    unpackAt,
    pack(value) {
      const bytes = new Uint8Array(size); // padding bytes stay zero
      packInto(value, new DataView(bytes.buffer), 0);
      return bytes;
    },
    unpack(bytes) {
      if (!(bytes instanceof Uint8Array)) throw new DescriptorError(name, 'unpack needs a Uint8Array');
      if (bytes.length !== size) throw new DescriptorError(name, `needs exactly ${size} bytes, got ${bytes.length}`);
      return unpackAt(bytes, 0);
    },
  };
}

function writeElem(struct: string, field: string, t: FieldType, x: unknown, view: DataView, at: number): void {
  if (isEnum(t)) {
    const i = typeof x === 'number' ? x : t.values.indexOf(x as string);
    if (!Number.isInteger(i) || i < 0 || i >= t.values.length) {
      throw new DescriptorError(struct, `field '${field}': ${String(x)} is not a value of enum ${t.enum} (${t.values.join(', ')})`);
    }
    view.setInt32(at, i, true);
    return;
  }
  if (t === 'i64' || t === 'u64') {
    let b: bigint;
    if (typeof x === 'bigint') b = x;
    else if (typeof x === 'number' && Number.isSafeInteger(x)) b = BigInt(x);
    else throw new DescriptorError(struct, `field '${field}' (${t}) needs an integer (a bigint beyond 2^53), got ${String(x)}`);
    const [lo, hi] = t === 'i64' ? [-(1n << 63n), (1n << 63n) - 1n] : [0n, (1n << 64n) - 1n];
    if (b < lo || b > hi) throw new DescriptorError(struct, `field '${field}' (${t}): ${b} is out of range`);
    if (t === 'i64') view.setBigInt64(at, b, true);
    else view.setBigUint64(at, b, true);
    return;
  }
  if (typeof x !== 'number') throw new DescriptorError(struct, `field '${field}' (${t}) needs a number, got ${typeof x}`);
  if (t === 'f32') return view.setFloat32(at, x, true);
  if (t === 'f64') return view.setFloat64(at, x, true);
  const [lo, hi] = INT_RANGE[t]!;
  if (!Number.isInteger(x) || x < lo || x > hi) throw new DescriptorError(struct, `field '${field}' (${t}): ${x} is not an integer in [${lo}, ${hi}]`);
  switch (t) {
    case 'i8': return view.setInt8(at, x);
    case 'u8': return view.setUint8(at, x);
    case 'i16': return view.setInt16(at, x, true);
    case 'u16': return view.setUint16(at, x, true);
    case 'i32': return view.setInt32(at, x, true);
    case 'u32': return view.setUint32(at, x, true);
  }
}

function readElem(struct: string, field: string, t: FieldType, view: DataView, at: number): unknown {
  if (isEnum(t)) {
    const i = view.getInt32(at, true);
    if (i < 0 || i >= t.values.length) throw new DescriptorError(struct, `field '${field}' holds ${i}, not a value of enum ${t.enum} (0..${t.values.length - 1})`);
    return t.values[i];
  }
  switch (t) {
    case 'i8': return view.getInt8(at);
    case 'u8': return view.getUint8(at);
    case 'i16': return view.getInt16(at, true);
    case 'u16': return view.getUint16(at, true);
    case 'i32': return view.getInt32(at, true);
    case 'u32': return view.getUint32(at, true);
    case 'i64': return view.getBigInt64(at, true);
    case 'u64': return view.getBigUint64(at, true);
    case 'f32': return view.getFloat32(at, true);
    case 'f64': return view.getFloat64(at, true);
  }
}

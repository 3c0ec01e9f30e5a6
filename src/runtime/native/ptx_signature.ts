// Kernel signatures for PTX and cubins that Tessera did not write (nvcc, Triton, by hand): the
// `.entry` parameter lists of a PTX module read from its text, or a signature given by the caller;
// either way, every parameter gets a type, size, alignment and an offset computed from them.
import { NativeDeviceError } from './errors.js';

/** A parameter's type as the low-level launch sees it. `ptr` is a 64-bit address; `bytes` an aggregate passed by value. */
export type ForeignParamType = 'ptr' | 'u64' | 'i64' | 'u32' | 'i32' | 'u16' | 'i16' | 'u8' | 'i8' | 'f64' | 'f32' | 'f16' | 'bf16' | 'bytes';

export interface ForeignParam {
  readonly name: string;
  readonly type: ForeignParamType;
  /** Bytes the parameter occupies (for `bytes`: the aggregate's size). */
  readonly size: number;
  readonly align: number;
  /** Byte offset in the launch's parameter buffer. */
  readonly offset: number;
}

/** What a caller may write for one parameter of an explicit signature. */
export type ParamDecl = ForeignParamType | { readonly name?: string; readonly type: ForeignParamType; readonly size?: number; readonly align?: number };

const SIZES: Readonly<Record<Exclude<ForeignParamType, 'bytes'>, number>> = {
  ptr: 8, u64: 8, i64: 8, u32: 4, i32: 4, u16: 2, i16: 2, u8: 1, i8: 1, f64: 8, f32: 4, f16: 2, bf16: 2,
};

// PTX parameter types -> ours. .b* and .u* read as unsigned; a .u64 may also carry a pointer, so a
// DeviceArray is accepted there too (see the launch's argument writer).
const PTX_TYPES: Readonly<Record<string, Exclude<ForeignParamType, 'bytes' | 'ptr'>>> = {
  u64: 'u64', b64: 'u64', s64: 'i64', u32: 'u32', b32: 'u32', s32: 'i32', u16: 'u16', b16: 'u16', s16: 'i16',
  u8: 'u8', b8: 'u8', s8: 'i8', f64: 'f64', f32: 'f32', f16: 'f16', bf16: 'bf16',
};

const bad = (msg: string): never => {
  throw new NativeDeviceError('E_ARG', msg);
};

/** Lays parameters out in order, each at the next multiple of its alignment. */
export function layout(params: readonly Omit<ForeignParam, 'offset'>[]): { params: ForeignParam[]; bytes: number } {
  let at = 0;
  const out = params.map((p) => {
    at = Math.ceil(at / p.align) * p.align;
    const q: ForeignParam = { ...p, offset: at };
    at += p.size;
    return q;
  });
  return { params: out, bytes: at };
}

function stripComments(ptx: string): string {
  return ptx.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, '');
}

function parseParam(kernel: string, text: string, index: number): Omit<ForeignParam, 'offset'> {
  const where = `kernel '${kernel}', parameter ${index}`;
  const tokens = text.trim().split(/\s+/);
  if (tokens[0] !== '.param') bad(`${where}: expected '.param ...', got '${text.trim()}'`);
  let type: Exclude<ForeignParamType, 'bytes' | 'ptr'> | undefined;
  let align: number | undefined;
  let isPtr = false;
  let name: string | undefined;
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === '.align') {
      align = Number(tokens[++i]);
      if (!Number.isInteger(align) || align < 1 || (align & (align - 1)) !== 0) bad(`${where}: bad .align '${tokens[i]}'`);
    } else if (t === '.ptr') isPtr = true;
    else if (t === '.global' || t === '.shared' || t === '.const' || t === '.local') {
      // the state space a .ptr points to; the parameter is still a 64-bit address
    } else if (t.startsWith('.')) {
      const ty = PTX_TYPES[t.slice(1)];
      if (!ty) bad(`${where}: unsupported parameter type '${t}'`);
      type = ty;
    } else name = tokens.slice(i).join('');
  }
  if (!type) return bad(`${where}: no type in '${text.trim()}'`);
  if (!name) return bad(`${where}: no name in '${text.trim()}'`);
  const arr = /^([A-Za-z_$%][\w$%]*)(?:\[(\d+)\])?$/.exec(name);
  if (!arr) return bad(`${where}: cannot read the parameter name '${name}'`);
  const elem = SIZES[type];
  if (arr[2] !== undefined) {
    const n = Number(arr[2]);
    return { name: arr[1]!, type: 'bytes', size: elem * n, align: align ?? elem };
  }
  if (isPtr && type !== 'u64') bad(`${where}: a .ptr parameter must be .u64`);
  // `.ptr .space .align N` is the alignment of what it points to; the parameter is a plain u64
  if (isPtr) return { name: arr[1]!, type: 'ptr', size: elem, align: elem };
  return { name: arr[1]!, type, size: elem, align: Math.max(align ?? elem, elem) };
}

/** Every `.entry` of a PTX module with its parameters, in order. */
export function ptxEntries(ptx: string): Map<string, ForeignParam[]> {
  const text = stripComments(ptx);
  const out = new Map<string, ForeignParam[]>();
  const re = /\.entry\s+([A-Za-z_$%][\w$%]*)\s*(\(([^)]*)\))?/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const name = m[1]!;
    const list = (m[3] ?? '').trim();
    const params = list === '' ? [] : list.split(',').map((p, i) => parseParam(name, p, i));
    out.set(name, layout(params).params);
  }
  return out;
}

/** Checks and lays out an explicit signature (needed for cubins, optional for PTX). */
export function explicitSignature(kernel: string, decls: readonly ParamDecl[]): ForeignParam[] {
  if (!Array.isArray(decls)) bad(`kernel '${kernel}': the signature must be an array of parameter types`);
  const ps = decls.map((d, i) => {
    const o = typeof d === 'string' ? { type: d } : d;
    const where = `kernel '${kernel}', signature entry ${i}`;
    if (typeof o !== 'object' || o === null || typeof o.type !== 'string') return bad(`${where}: expected a type name or { type, ... }, got ${JSON.stringify(d)}`);
    const name = 'name' in o && typeof o.name === 'string' ? o.name : `param_${i}`;
    if (o.type === 'bytes') {
      const size = 'size' in o ? o.size : undefined;
      const align = ('align' in o ? o.align : undefined) ?? 1;
      if (!Number.isInteger(size) || (size as number) < 1) bad(`${where}: a 'bytes' parameter needs a positive integer size`);
      if (!Number.isInteger(align) || align < 1 || (align & (align - 1)) !== 0) bad(`${where}: align must be a power of two`);
      return { name, type: 'bytes' as const, size: size as number, align };
    }
    const size = SIZES[o.type as Exclude<ForeignParamType, 'bytes'>];
    if (size === undefined) return bad(`${where}: unknown type '${o.type}' (use ${Object.keys(SIZES).join(', ')} or bytes)`);
    return { name, type: o.type, size, align: size };
  });
  return layout(ps).params;
}

/** True when `image` starts like an ELF cubin or a fatbinary (not PTX text). */
export function isBinaryImage(image: Uint8Array): boolean {
  const elf = image.length >= 4 && image[0] === 0x7f && image[1] === 0x45 && image[2] === 0x4c && image[3] === 0x46;
  const fatbin = image.length >= 4 && image[0] === 0x50 && image[1] === 0xed && image[2] === 0x55 && image[3] === 0xba;
  return elf || fatbin;
}

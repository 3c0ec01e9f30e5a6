// A tiny evaluator for the PTX subset the math sequences emit, so their accuracy is measured on the
// exact instructions we ship. Correctly rounded instructions are modelled exactly (f32 through
// Math.fround, which is exact for + - * / sqrt; fma through BigInt). The `.approx` hardware
// instructions are modelled as correctly rounded: tests on fast paths check the sequence around
// them, not the hardware's error. Unknown instructions throw.
import { decompose } from './math-ref.js';

type Val = number | bigint | boolean;
type Fmt = 'f32' | 'f64';

const f32 = Math.fround;

/** Rounds n * 2^e to p significant bits (ties to even), quantum never below 2^qmin. */
function roundBig(n: bigint, e: number, p: number, qmin: number): number {
  const neg = n < 0n;
  const mag = neg ? -n : n;
  const len = mag.toString(2).length;
  const q = Math.max(e + len - p, qmin);
  const shift = q - e;
  let r: bigint;
  if (shift > 0) {
    const s = BigInt(shift);
    r = mag >> s;
    const rem = mag - (r << s);
    const half = 1n << (s - 1n);
    if (rem > half || (rem === half && (r & 1n) === 1n)) r += 1n;
  } else r = mag << BigInt(-shift);
  const v = Number(r) * 2 ** q;
  return neg ? -v : v;
}

/** Exact fused multiply-add rounded once to the format. */
export function fmaExact(a: number, b: number, c: number, fmt: Fmt): number {
  const round = fmt === 'f32' ? f32 : (v: number) => v;
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c) || a === 0 || b === 0) return round(a * b + c);
  const A = decompose(a);
  const B = decompose(b);
  const C = decompose(c);
  const pe = A.exp + B.exp;
  const e = Math.min(pe, C.exp);
  const n = ((A.n * B.n) << BigInt(pe - e)) + (C.n << BigInt(C.exp - e));
  if (n === 0n) return 0;
  return fmt === 'f32' ? roundBig(n, e, 24, -149) : roundBig(n, e, 53, -1074);
}

const bitsBuf = new DataView(new ArrayBuffer(8));
const f32Bits = (x: number): bigint => {
  bitsBuf.setFloat32(0, x);
  return BigInt(bitsBuf.getUint32(0));
};
const f64Bits = (x: number): bigint => {
  bitsBuf.setFloat64(0, x);
  return bitsBuf.getBigUint64(0);
};
const bitsF32 = (b: bigint): number => {
  bitsBuf.setUint32(0, Number(BigInt.asUintN(32, b)));
  return bitsBuf.getFloat32(0);
};
const bitsF64 = (b: bigint): number => {
  bitsBuf.setBigUint64(0, BigInt.asUintN(64, b));
  return bitsBuf.getFloat64(0);
};

/** Kind of a register from the emitter's prefixes (%f, %fd, %r, %rd, %p). */
function regKind(name: string): 'f32' | 'f64' | 'i32' | 'i64' | 'pred' {
  if (name.startsWith('%fd')) return 'f64';
  if (name.startsWith('%f')) return 'f32';
  if (name.startsWith('%rd')) return 'i64';
  if (name.startsWith('%r')) return 'i32';
  if (name.startsWith('%p')) return 'pred';
  throw new Error(`math-eval: unknown register ${name}`);
}

function parseImm(tok: string, type: string): Val {
  if (/^0f[0-9A-Fa-f]{8}$/.test(tok)) return bitsF32(BigInt('0x' + tok.slice(2)));
  if (/^0d[0-9A-Fa-f]{16}$/.test(tok)) return bitsF64(BigInt('0x' + tok.slice(2)));
  if (/^-?(0x[0-9A-Fa-f]+|\d+)$/.test(tok)) {
    const neg = tok.startsWith('-');
    const v = BigInt(neg ? tok.slice(1) : tok);
    const w = type.endsWith('64') ? 64 : 32;
    return BigInt.asUintN(w, neg ? -v : v);
  }
  throw new Error(`math-eval: bad operand ${tok}`);
}

const roundTo = (fmt: string) => (fmt === 'f32' ? f32 : (v: number) => v);
const intWidth = (t: string): number => (t.endsWith('64') ? 64 : 32);
const signed = (v: bigint, t: string): bigint => BigInt.asIntN(intWidth(t), v);

function cvtRound(mode: string, v: number): number {
  switch (mode) {
    case 'rni': {
      if (!Number.isFinite(v)) return v;
      const f = Math.floor(v);
      const d = v - f;
      const r = d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
      return r === 0 ? (Object.is(v, -0) || v < 0 ? -0 : 0) : r;
    }
    case 'rmi': return Math.floor(v);
    case 'rpi': return Math.ceil(v);
    case 'rzi': return Math.trunc(v);
  }
  throw new Error(`math-eval: cvt rounding ${mode}`);
}

function floatMinMax(a: number, b: number, max: boolean): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return max ? Math.max(a, b) : Math.min(a, b);
}

function compare(cmp: string, a: number | bigint, b: number | bigint): boolean {
  if (cmp === 'nan') return Number.isNaN(a) || Number.isNaN(b);
  switch (cmp) {
    case 'lt': return a < b;
    case 'le': return a <= b;
    case 'gt': return a > b;
    case 'ge': return a >= b;
    case 'eq': return a === b;
    case 'ne': return a !== b && !(typeof a === 'number' && (Number.isNaN(a) || Number.isNaN(b as number)));
  }
  throw new Error(`math-eval: setp.${cmp}`);
}

type Step = (r: Map<string, Val>) => void;

/** Compiles lines like `fma.rn.f32 %f3, %f1, 0f3F800000, %f2;` into a runnable program. */
export function compileSeq(lines: readonly string[]): (inputs: Record<string, Val>) => Map<string, Val> {
  const steps = lines.map(compileLine);
  return (inputs) => {
    const regs = new Map<string, Val>(Object.entries(inputs));
    for (const s of steps) s(regs);
    return regs;
  };
}

function compileLine(raw: string): Step {
  const line = raw.trim().replace(/;$/, '');
  const sp = line.indexOf(' ');
  const opcode = line.slice(0, sp);
  const ops = line.slice(sp + 1).split(',').map((s) => s.trim());
  const parts = opcode.split('.');
  const base = parts[0]!;
  const type = parts[parts.length - 1]!;
  const [dst, ...srcs] = ops as [string, ...string[]];
  const get = (r: Map<string, Val>, tok: string, t = type): Val => {
    if (tok.startsWith('%')) {
      const v = r.get(tok);
      if (v === undefined) throw new Error(`math-eval: ${tok} read before written in '${line}'`);
      return v;
    }
    return parseImm(tok, t);
  };
  const isFloat = type === 'f32' || type === 'f64';
  const rnd = roundTo(type);
  const fl = (fn: (...a: number[]) => number): Step => (r) => {
    r.set(dst, rnd(fn(...srcs.map((s) => get(r, s) as number))));
  };
  const int = (fn: (...a: bigint[]) => bigint): Step => (r) => {
    r.set(dst, BigInt.asUintN(intWidth(type), fn(...srcs.map((s) => get(r, s) as bigint))));
  };
  if (isFloat) {
    switch (base) {
      case 'add': return fl((a, b) => a + b);
      case 'sub': return fl((a, b) => a - b);
      case 'mul': return fl((a, b) => a * b);
      case 'div': return fl((a, b) => a / b);
      case 'fma': return (r) => r.set(dst, fmaExact(get(r, srcs[0]!) as number, get(r, srcs[1]!) as number, get(r, srcs[2]!) as number, type as Fmt));
      case 'min': return fl((a, b) => floatMinMax(a, b, false));
      case 'max': return fl((a, b) => floatMinMax(a, b, true));
      case 'abs': return fl((a) => Math.abs(a));
      case 'neg': return fl((a) => -a);
      case 'copysign': return fl((a, b) => (a < 0 || Object.is(a, -0) ? -Math.abs(b) : Math.abs(b)));
      case 'sqrt': return fl((a) => Math.sqrt(a));
      case 'rcp': return fl((a) => 1 / a);
      case 'rsqrt': return fl((a) => 1 / Math.sqrt(a));
      case 'ex2': return fl((a) => 2 ** a);
      case 'lg2': return fl((a) => Math.log2(a));
      case 'sin': return fl((a) => Math.sin(a));
      case 'cos': return fl((a) => Math.cos(a));
      case 'tanh': return fl((a) => Math.tanh(a));
      case 'selp': return (r) => r.set(dst, get(r, srcs[2]!) ? get(r, srcs[0]!) : get(r, srcs[1]!));
      case 'mov': return (r) => r.set(dst, get(r, srcs[0]!));
      case 'setp': {
        const cmp = parts[1]!;
        return (r) => r.set(dst, compare(cmp, get(r, srcs[0]!) as number, get(r, srcs[1]!) as number));
      }
    }
  }
  if (base === 'cvt') {
    // cvt[.mode].dst.src
    const from = parts[parts.length - 1]!;
    const to = parts[parts.length - 2]!;
    const mode = parts.length === 4 ? parts[1]! : '';
    return (r) => {
      const v = get(r, srcs[0]!, from);
      if ((to === 'f32' || to === 'f64') && (from === 'f32' || from === 'f64')) r.set(dst, roundTo(to)(cvtRound(mode, v as number)));
      else if (to.startsWith('s') && (from === 'f32' || from === 'f64')) {
        const x = v as number;
        const lim = 2 ** (intWidth(to) - 1);
        const t = Number.isNaN(x) ? 0 : Math.min(Math.max(cvtRound(mode, x), -lim), lim - 1);
        r.set(dst, BigInt.asUintN(intWidth(to), BigInt(t)));
      } else if ((to === 'f32' || to === 'f64') && from.startsWith('s')) r.set(dst, roundTo(to)(Number(signed(v as bigint, from))));
      else if (to.startsWith('s') && from.startsWith('s')) r.set(dst, BigInt.asUintN(intWidth(to), signed(v as bigint, from)));
      else throw new Error(`math-eval: ${line}`);
    };
  }
  if (base === 'mov' && (type === 'b32' || type === 'b64')) {
    return (r) => {
      const v = get(r, srcs[0]!);
      const dk = regKind(dst);
      const bits = typeof v === 'number' ? (type === 'b32' ? f32Bits(v) : f64Bits(v)) : (v as bigint);
      if (dk === 'f32') r.set(dst, bitsF32(bits));
      else if (dk === 'f64') r.set(dst, bitsF64(bits));
      else r.set(dst, bits);
    };
  }
  switch (base) {
    case 'add': return int((a, b) => a + b);
    case 'sub': return int((a, b) => a - b);
    case 'neg': return int((a) => -a);
    case 'and': return int((a, b) => a & b);
    case 'shl': return int((a, b) => a << b);
    case 'shr':
      return int((a, b) => (type.startsWith('s') ? signed(a, type) >> b : a >> b));
    case 'setp': {
      const cmp = parts[1]!;
      return (r) => r.set(dst, compare(cmp, signed(get(r, srcs[0]!) as bigint, type), signed(get(r, srcs[1]!) as bigint, type)));
    }
  }
  throw new Error(`math-eval: unsupported instruction '${line}'`);
}

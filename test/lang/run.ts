// Runs a traced kernel on the interpreter: typed arrays become device buffers (copied back
// after the run), numbers/bigints/booleans are scalar args.
import { verify } from '../../src/ir/verify.js';
import { HostMemory, interpret } from '../../src/interpret/index.js';
import type { KernelDef } from '../../src/lang/index.js';

export type Arg = ArrayBufferView | number | bigint | boolean;

export function runKernel(def: KernelDef, constexprs: Record<string, number | boolean | string>, args: Arg[], grid: number[], onPrint?: (line: string) => void): ArrayBufferView[] {
  const func = def.trace(constexprs);
  verify(func);
  const mem = new HostMemory();
  const addrs = new Map<number, number>();
  const scalars = args.map((a, i) => {
    if (ArrayBuffer.isView(a)) {
      const addr = mem.upload(a);
      addrs.set(i, addr);
      return addr;
    }
    return a;
  });
  interpret(func, scalars, mem, { grid, ...(onPrint ? { onPrint } : {}) });
  return args.map((a, i) => {
    if (!ArrayBuffer.isView(a)) return a as never;
    const copy = new (a.constructor as new (n: number) => ArrayBufferView)((a as unknown as { length: number }).length);
    mem.download(addrs.get(i)!, copy);
    return copy;
  });
}

/** Deterministic PRNG (mulberry32) so failures reproduce. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const randF32 = (r: () => number, n: number, lo = -4, hi = 4): Float32Array => Float32Array.from({ length: n }, () => lo + (hi - lo) * r());
export const randI32 = (r: () => number, n: number, lo = -1000, hi = 1000): Int32Array => Int32Array.from({ length: n }, () => Math.floor(lo + (hi - lo + 1) * r()));

/** Asserts |got - want| <= atol + rtol*|want| elementwise (NaN matches NaN). Returns the max error. */
export function closeTo(got: ArrayLike<number>, want: ArrayLike<number>, rtol = 1e-6, atol = 1e-6): number {
  if (got.length !== want.length) throw new Error(`length ${got.length} != ${want.length}`);
  let maxErr = 0;
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!, w = want[i]!;
    if (Number.isNaN(w) && Number.isNaN(g)) continue;
    const err = Math.abs(g - w);
    if (!(err <= atol + rtol * Math.abs(w)) && g !== w) throw new Error(`element ${i}: got ${g}, want ${w}`);
    maxErr = Math.max(maxErr, Number.isFinite(err) ? err : 0);
  }
  return maxErr;
}

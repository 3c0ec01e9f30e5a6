// Runs a kernel's PTX, as compiled or cut on purpose, in place of the compiled kernel's on the
// sim: what the sabotage tests (and the tests that launch a compiled kernel by hand) share. The
// matmul fixture below is the one problem most warp-specialization sabotages launch (one CTA,
// f16 A and B, f32 C), with its reference and its "wrong result" test; the mbarrier wait loop
// is the piece of PTX their surgery cuts most.
import { expect } from 'vitest';
import type { CompileResult } from '../../src/compile/compile.js';
import { f16ToFloat32 } from '../../src/ir/half.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { matmulF64, simDevice } from './helpers.js';

type Dims = readonly [number, number, number];

/**
 * Launches `ptx` with `r`'s metadata (its cubin, if any, left out: the text is what runs) on
 * `grid` (in clusters of `cluster` when given): the typed-array arguments are uploaded first (an
 * allocation or upload failure fails the test, it is not the kernel's fault), and argument `out`
 * comes back as a new array of its type. Returns the launch's own fault as an Error instead. The
 * buffers are freed after, as far as a context that a fault ended still allows.
 */
export function launchInPlace<T extends ArrayBufferView>(r: CompileResult, ptx: string, args: readonly LaunchArg[], grid: Dims, out: number, cluster?: Dims): T | Error {
  const dev = simDevice().native;
  const bufs = args.map((a) => {
    if (!ArrayBuffer.isView(a)) return undefined;
    const b = dev.alloc(Math.max(1, a.byteLength));
    dev.upload(b, a);
    return b;
  });
  try {
    const { cubin: _text_runs, ...meta } = r;
    try {
      dev.launch({ ...meta, ptx }, args.map((a, i) => bufs[i] ?? a), grid as [number, number, number], cluster ? { cluster } : {});
      dev.synchronize();
    } catch (e) {
      return e as Error;
    }
    const like = args[out] as unknown as T & { constructor: new (n: number) => T; length: number };
    return dev.download(bufs[out]!, new like.constructor(like.length));
  } finally {
    try {
      for (const b of bufs) if (b) dev.free(b);
    } catch { /* the context a fault ended: its fault is what the caller sees */ }
  }
}

/** How a result is judged wrong: any f32 bit off the reference, or outside a relative tolerance (NaN included). */
export type Verdict = 'bitwise' | { readonly rel: number };

export interface MatmulSabotage {
  /** The compiled kernel's PTX (compiled once, on first use). */
  ptx(): string;
  /** C = A B of the f16 inputs in f64. */
  want(): Float64Array;
  /** The same rounded to f32 (exact for small-integer inputs). */
  wantF32(): Float32Array;
  /** Whether `c` is not C = A B under the verdict, or is a fault. */
  isWrong(c: Float32Array | Error): boolean;
  /** `ptx` launched in place of the compiled kernel's on one CTA, C zeroed first: the result, or the launch's fault. */
  launch(ptx: string): Float32Array | Error;
}

/** One CTA's f16 matmul C [M, N] = A [M, K] B [K, N] (f32 C), as the kernel `build` compiles takes (a, b, c, M, N, K). */
export function matmulSabotage(a: Uint16Array, b: Uint16Array, [M, N, K]: Dims, build: () => CompileResult, verdict: Verdict): MatmulSabotage {
  let built: CompileResult | undefined;
  let want: Float64Array | undefined;
  const kernel = (): CompileResult => (built ??= build());
  const ref = (): Float64Array => (want ??= matmulF64(f16ToFloat32(a), f16ToFloat32(b), M, N, K));
  const wantF32 = (): Float32Array => Float32Array.from(ref());
  return {
    ptx: () => kernel().ptx,
    want: ref,
    wantF32,
    isWrong: (c) => {
      if (c instanceof Error) return true;
      if (verdict === 'bitwise') {
        const w = wantF32();
        return c.some((x, i) => !Object.is(x, w[i]!));
      }
      const w = ref();
      return c.some((x, i) => !(Math.abs(x - w[i]!) <= verdict.rel * (1 + Math.abs(w[i]!))));
    },
    launch: (ptx) => launchInPlace<Float32Array>(kernel(), ptx, [a, b, new Float32Array(M * N), M, N, K], [1, 1, 1], 2),
  };
}

/** A TMA-ring mbarrier wait: its label, the try_wait, the branch back while the phase is not complete. */
export const MBARRIER_WAIT_LOOP = /\n\s*\$L_tma_wait_\d+:\n\s*mbarrier\.try_wait[^\n]*\n\s*@!%p\d+ bra\.uni \$L_tma_wait_\d+;/;

/** `part` without its one mbarrier wait loop (it must hold exactly one). */
export function cutTheWait(part: string): string {
  expect(part.match(new RegExp(MBARRIER_WAIT_LOOP.source, 'g'))?.length).toBe(1);
  return part.replace(MBARRIER_WAIT_LOOP, '');
}

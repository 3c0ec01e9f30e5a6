// The cp.async-fed warp-specialized matmul (ws_cpasync.ts) for the sabotage tests: its PTX, cut by
// ws_sabotage.ts's surgery, launched on the sim in place of the compiled kernel. 128x128x64 on 4
// warps, K = 512: 8 k-steps through 3 stages, so every stage is reused and both mbarriers of each
// stage cycle. Small-integer inputs: the right result is exact.
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { f16Array, f16ToFloat32 } from '../../src/ir/half.js';
import { simDevice } from './helpers.js';
import { wsPtrMatmul } from './ws_cpasync_cases.js';

const [M, N, K] = [128, 128, 512];
const ints = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 7) - 3);
const a = f16Array(ints(M * K, 1)), b = f16Array(ints(K * N, 4));
const SPEC = { a: { divisibleBy16: true }, b: { divisibleBy16: true }, c: { divisibleBy16: true }, N: { divisibleBy16: true }, K: { divisibleBy16: true } };
let built: CompileResult | undefined;
const kernelOf = (): CompileResult =>
  (built ??= compile(wsPtrMatmul, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, specialization: SPEC as never, constexprs: { BM: 128, BN: 128, BK: 64, WS: true } }));
export const cpPtx = (): string => kernelOf().ptx;

/** Whether `c` is not C = A B (exact), or a fault. */
export function isWrongCp(c: Float32Array | Error): boolean {
  if (c instanceof Error) return true;
  const [fa, fb] = [f16ToFloat32(a), f16ToFloat32(b)];
  for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += fa[i * K + k]! * fb[k * N + j]!;
    if (c[i * N + j] !== s) return true;
  }
  return false;
}

/** Launches `ptx` in place of the compiled kernel's on one CTA: the result, or the launch's fault. */
export function launchCp(ptx: string): Float32Array | Error {
  const dev = simDevice().native;
  const [ba, bb, bc] = [dev.alloc(a.byteLength), dev.alloc(b.byteLength), dev.alloc(M * N * 4)];
  dev.upload(ba, a);
  dev.upload(bb, b);
  dev.upload(bc, new Float32Array(M * N));
  const c = new Float32Array(M * N);
  try {
    dev.launch({ ...kernelOf(), ptx }, [ba, bb, bc, M, N, K], [1, 1, 1]);
    dev.synchronize();
  } catch (e) {
    return e as Error;
  }
  dev.download(bc, c);
  return c;
}

// The writers' fence.proxy.async.global before a TMA load of what the program stored through a
// pointer (codegen/async/proxy_fence.ts). The sim makes global writes visible to every proxy at
// once, so a kernel without the fence still computes the right numbers there; racecheck names the
// missing fence instead (native/sim/src/sanitize_proxy.cpp): the compiled PTX is clean under it,
// the PTX with the fence cut out is a report, never a silent pass. Its own file: a hazard fails
// the launch (E_HAZARD), and the sanitized suite leaves this sabotage out.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { arange, dot, forLoop, makeTensorDescriptor, programId, ptr, store, zeros, constexpr } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/kernel.js';
import { f16Array } from '../../src/ir/half.js';
import { NativeDevice } from '../../src/runtime/native/native-device.js';

const T = 64;

// a's first T x T block overwritten through a pointer store, then c = a b by a TMA-fed K loop
const storeThenRing = kernel(
  { name: 'proxy_fence_ring', params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32'), x: ptr('f16'), M: 'i32', K: 'i32', WS: constexpr() } },
  ({ a, b, c, x, M, K, WS }) => {
    const r = arange(0, T);
    const tile = makeTensorDescriptor(x, [T, T], [T, 1], [T, T]).load([0, 0]);
    store(a.add(r.expandDims(1).mul(K)).add(r.expandDims(0)), tile);
    const da = makeTensorDescriptor(a, [M, K], [K, 1], [T, T]);
    const db = makeTensorDescriptor(b, [K, T], [T, 1], [T, T]);
    const om = programId(0).mul(T);
    const [acc] = forLoop(0, K, T, [zeros([T, T], 'f32')], (k, acc) => [dot(da.load([om, k]), db.load([k, 0]), { acc: acc! })], { warpSpecialize: Boolean(WS) });
    makeTensorDescriptor(c, [M, T], [T, 1], [T, T]).store([om, 0], acc!);
  },
);

const [M, K] = [2 * T, 3 * T];
const ints = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => ((i * 7 + seed * 13) % 5) - 2);
const A = ints(M * K, 1), B = ints(K * T, 2), X = Float32Array.from({ length: T * T }, (_, i) => (i % 3) + 1);

function want(): Float32Array {
  const a = A.slice();
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) a[i * K + j] = X[i * T + j]!;
  const c = new Float32Array(M * T);
  for (let i = 0; i < M; i++) for (let j = 0; j < T; j++) {
    let s = 0;
    for (let k = 0; k < K; k++) s += a[i * K + k]! * B[k * T + j]!;
    c[i * T + j] = s;
  }
  return c;
}

/**
 * Runs `ptx` (built's kernel) under racecheck on a device of its own, closed after (a hazard is a
 * sticky launch failure, as a fault is; nothing else in this file opens the sim); returns the
 * result, or throws the launch's error.
 */
function launchChecked(built: ReturnType<typeof compile>, ptx: string): Float32Array {
  const dev = NativeDevice.open('sim');
  dev.driver.simSetSanitize(1); // racecheck
  const bufs = [f16Array(A), f16Array(B), new Float32Array(M * T), f16Array(X)].map((h) => {
    const p = dev.alloc(h.byteLength);
    dev.upload(p, h);
    return p;
  });
  try {
    dev.launch({ ...built, ptx }, [...bufs, M, K], [M / T, 1, 1]);
    dev.synchronize();
    return dev.download(bufs[2]!, new Float32Array(M * T));
  } finally {
    dev.driver.simSetSanitize(0);
    dev.close();
  }
}

describe('racecheck names a TMA load of pointer-stored bytes without fence.proxy.async.global', () => {
  it.each([['the warp-specialized ring', true], ['the plain TMA ring', false]])('%s: clean as compiled, a proxy hazard with the fence cut out', (_, ws) => {
    const built = compile(storeThenRing, { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: false, constexprs: { WS: ws } });
    expect(built.ptx.match(/fence\.proxy\.async\.global;/g)).toHaveLength(1);
    expect(Array.from(launchChecked(built, built.ptx))).toEqual(Array.from(want()));
    const cut = built.ptx.replace('fence.proxy.async.global;', '');
    expect(() => launchChecked(built, cut)).toThrow(/racecheck hazard in kernel 'proxy_fence_ring': proxy hazard on global memory \[0x[0-9a-f]+, \+\d+\): cp\.async\.bulk\.tensor \(async proxy\) .* reads bytes that a generic-proxy store .* wrote, with no fence\.proxy\.async/);
  });
});

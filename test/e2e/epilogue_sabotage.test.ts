// The persistent matmul's TMA-store epilogue is load-bearing on the sim: the sim's bulk store reads
// its shared tile only when a cp.async.bulk.wait_group covers it (native/sim/src/exec_bulk.cpp),
// as hardware may. String surgery on the generated PTX deletes the full wait_group after each
// tile's store; the next tile's stmatrix then overwrites the tile before the store has read it,
// and the result must be wrong (never a silent pass). The untouched PTX is the control.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../../src/compile/compile.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { f16Array } from '../../src/ir/half.js';
import { ints, persistentMatmul, reference } from './persistent_cases.js';
import { simDevice } from './helpers.js';

const M = 128, N = 128, K = 64;
const A = ints(M * K, 5), B = ints(K * N, 6);
const want = f16Array(reference(A.vals, B.vals, M, N, K));

/** Runs `compiled` on the sim with one program (it walks all 4 tiles); returns c's bits. */
function run(compiled: CompileResult): Uint16Array {
  const dev = simDevice().native;
  const [ba, bb, bc] = [dev.alloc(A.bits.byteLength), dev.alloc(B.bits.byteLength), dev.alloc(M * N * 2)];
  try {
    dev.upload(ba, A.bits);
    dev.upload(bb, B.bits);
    dev.upload(bc, new Uint16Array(M * N));
    dev.launch(compiled, [ba, bb, bc, M, N, K], [1, 1, 1]);
    dev.synchronize();
    return dev.download(bc, new Uint16Array(M * N));
  } finally {
    for (const b of [ba, bb, bc]) dev.free(b);
  }
}

const mismatches = (got: Uint16Array): number => got.reduce((n, v, i) => n + (v !== want[i] ? 1 : 0), 0);

describe('persistent TMA-store epilogue sabotage on the sim as sm_90', () => {
  const f = persistentMatmul.trace({ BM: 64, BN: 64, BK: 32, GROUP_M: 1 });
  const spec = launchSpecialization(f, [A.bits, B.bits, new Uint16Array(M * N), M, N, K]);
  const good = compile(f, { target: 'sm_90a', ptxas: false, specialization: spec });

  it('control: the generated PTX (stmatrix, TMA store, full wait before the tile is reused) is exact', () => {
    expect(good.ptx).toMatch(/stmatrix\.sync\.aligned\.m8n8\.x4/);
    expect(good.ptx).toMatch(/cp\.async\.bulk\.wait_group 0;/);
    expect(mismatches(run(good))).toBe(0);
  });

  it('without the bulk_group wait before the shared tile is reused, the result is wrong', () => {
    const lines = good.ptx.split('\n');
    const cut = lines.filter((l) => !/cp\.async\.bulk\.wait_group 0;/.test(l));
    expect(lines.length - cut.length).toBeGreaterThan(0);
    const bad = { ...good, ptx: cut.join('\n') };
    expect(mismatches(run(bad))).toBeGreaterThan(0);
  });
});

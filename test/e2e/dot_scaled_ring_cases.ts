// The block-scaled dotScaled kernels of the cp.async ring tests (dot_scaled_ring_sm100.test.ts):
// the cases of dot_scaled_cases.ts with b stored [N, K] (K contiguous, the MX weight layout, e2m1
// packed two a byte along K) and masked scales filled with 0, so the pipeliner may copy a, b and
// the ue8m0 scales global -> shared (compiler/pipeline_scaled.ts).
import { arange, dotScaled, forLoop, load, ptr, store, zeros, type Tile } from '../../src/lang/index.js';
import { kernel, type Kernel, type RunArgs } from '../../src/runtime/kernel.js';
import { deviceArgs, scaleKind, type Case, type Data } from './dot_scaled_cases.js';

const packed = (f: string): number => (f === 'e2m1' ? 2 : 1);
const group = (c: Case, f: string): number => (scaleKind(c, f as Case['fa']) === 'ue4m3' ? 16 : 32);

/** The case's kernel with b read from a [N, K/pb] array: its [BK/pb, BN] tile contiguous along K. */
export function ringKernel(c: Case, name: string): Kernel {
  const pa = packed(c.fa), pb = packed(c.fb);
  const dt = (f: string): 'f8e4m3' | 'f8e5m2' | 'u8' => (f === 'e4m3' ? 'f8e4m3' : f === 'e5m2' ? 'f8e5m2' : 'u8');
  const sdt = (f: string): 'f8e4m3' | 'u8' => (scaleKind(c, f as Case['fa']) === 'ue4m3' ? 'f8e4m3' : 'u8');
  return kernel(
    { name, params: { a: ptr(dt(c.fa)), b: ptr(dt(c.fb)), as: ptr(sdt(c.fa)), bs: ptr(sdt(c.fb)), c: ptr('f32') } },
    ({ a, b, as, bs, c: cp }) => {
      const rm = arange(0, c.BM).expandDims(1), rn = arange(0, c.BN).expandDims(0);
      const cMask = rm.lt(c.M).and(rn.lt(c.N));
      const acc0: Tile = c.acc ? load(cp.add(rm.mul(c.N).add(rn)), { mask: cMask, other: 0 }) : zeros([c.BM, c.BN], 'f32');
      const [acc] = forLoop(0, Math.ceil(c.K / c.BK), 1, [acc0], (it, acc) => {
        const ac = arange(0, c.BK / pa).expandDims(0).add(it.mul(c.BK / pa));
        const ta = load(a.add(rm.mul(c.K / pa).add(ac)), { mask: rm.lt(c.M).and(ac.lt(c.K / pa)), other: 0 });
        const br = arange(0, c.BK / pb).expandDims(1).add(it.mul(c.BK / pb));
        const tb = load(b.add(rn.mul(c.K / pb).add(br)), { mask: br.lt(c.K / pb).and(rn.lt(c.N)), other: 0 });
        const scaleTile = (p: typeof as, g: number, rows: Tile, R: number): Tile => {
          const sc = arange(0, c.BK / g).expandDims(0).add(it.mul(c.BK / g));
          return load(p.add(rows.mul(c.K / g).add(sc)), { mask: rows.lt(R).and(sc.lt(c.K / g)), other: 0 });
        };
        const sa = scaleTile(as, group(c, c.fa), rm, c.M);
        const sb = scaleTile(bs, group(c, c.fb), arange(0, c.BN).expandDims(1), c.N);
        return [dotScaled(ta, sa, c.fa, tb, sb, c.fb, { acc: acc! })];
      });
      store(cp.add(rm.mul(c.N).add(rn)), acc!, { mask: cMask });
    },
  );
}

/** deviceArgs of the case with b transposed to [N, K/pb] (bytes as stored, e2m1 pairs along K). */
export function ringArgs(c: Case, d: Data): RunArgs {
  const args = deviceArgs(c, d);
  const b = args['b'] as Uint8Array, kb = c.K / packed(c.fb);
  const bt = new Uint8Array(b.length);
  for (let k = 0; k < kb; k++) for (let n = 0; n < c.N; n++) bt[n * kb + k] = b[k * c.N + n]!;
  return { ...args, b: bt };
}

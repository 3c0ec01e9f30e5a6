// `npm start`: runs a few kernels on the default device and prints, for each, the max error
// against a plain-JS reference and how it was compiled (IR size, PTX, ptxas registers).
import { compile } from '../src/compile/compile.js';
import { getDevice, setDeviceAnnouncer } from '../src/runtime/device.js';
import type { Func } from '../src/ir/ops.js';
import { addKernel, pallasAdd, vectorAdd, vectorAddPallas } from './vector_add.js';
import { pallasSoftmax, softmax, softmaxKernel, softmaxPallas, softmaxRef } from './softmax.js';

const rand = (n: number, seed: number): Float32Array => {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 8 - 4;
  });
};

const maxErr = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
};

const countOps = (f: Func): number => {
  let n = 0;
  const walk = (ops: Func['body']['ops']): void => ops.forEach((o) => { n++; o.regions.forEach((r) => walk(r.ops)); });
  walk(f.body.ops);
  return n;
};

/** How a kernel is compiled for a GPU: PTX for sm_80 through the pipeline, ptxas figures if found. */
function howCompiled(f: Func): string {
  try {
    const r = compile(f, { target: 'sm_80' });
    const regs = r.metadata.registers !== undefined ? `, ptxas sm_80: ${r.metadata.registers} registers, ${r.metadata.spills ?? 0} spills` : ', ptxas not found';
    return `${countOps(f)} IR ops -> ${r.ptx.split('\n').length} PTX lines${regs}`;
  } catch (e) {
    return `${countOps(f)} IR ops; PTX lowering failed: ${(e as Error).message.split('\n')[0]}`;
  }
}

async function main(): Promise<void> {
  setDeviceAnnouncer(() => {});
  const device = getDevice();
  console.log(`tessera demo — device: ${device.description}`);
  console.log(device.kind === 'interpret'
    ? 'kernels run as tile IR in the interpreter; the PTX each would run as on a GPU is compiled alongside'
    : `kernels are compiled to PTX and run by the ${device.kind === 'sim' ? 'CPU PTX simulator (no GPU here)' : 'CUDA driver'}`);
  const rows: string[][] = [['kernel', 'style', 'max error', 'compiled']];

  const n = 10_000;
  const x = rand(n, 1);
  const y = rand(n, 2);
  const ref = Float64Array.from(x, (v, i) => Math.fround(v + (y[i] as number)));
  rows.push(['vector add', 'triton', String(maxErr(await vectorAdd(x, y), ref)), howCompiled(addKernel.trace({ BLOCK: 256 }))]);
  rows.push(['vector add', 'pallas', String(maxErr(await vectorAddPallas(x, y), ref)), howCompiled(pallasAdd(n).trace({ shape: [n], dtype: 'f32' }, { shape: [n], dtype: 'f32' }))]);

  const [r, c] = [64, 1000];
  const m = rand(r * c, 3);
  const sref = softmaxRef(m, r, c);
  rows.push(['softmax', 'triton', maxErr(await softmax(m, r, c), sref).toExponential(2), howCompiled(softmaxKernel.trace({ BLOCK: 1024 }))]);
  rows.push(['softmax', 'pallas', maxErr(await softmaxPallas(m, r, c), sref).toExponential(2), howCompiled(pallasSoftmax(r, c).trace({ shape: [r, c], dtype: 'f32' }))]);

  const w = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(w[i]!)).join('  '));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

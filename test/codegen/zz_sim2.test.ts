import { it, expect } from 'vitest';
import { kernel, P } from './dsl.js';
// reuse run from zz_sim via copy
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { compile } from '../../src/compiler/compile.js';
import type { Func } from '../../src/ir/ops.js';
function run(f: Func, args: (Float32Array | number)[], grid: number, nw = 4): (Float32Array | number)[] {
  const r = compile(f, { target: 'sm_80', ptxas: false, numWarps: nw });
  const dir = mkdtempSync(join(tmpdir(), 'simrun-'));
  writeFileSync(join(dir, 'k.ptx'), r.ptx);
  const cli = args.map((a, i) => { if (typeof a === 'number') return String(a); const p = join(dir, `b${i}`); writeFileSync(p, new Uint8Array(a.buffer)); return `buf:${p}`; });
  const o = execFileSync('/tmp/simb/harness', [join(dir, 'k.ptx'), f.name, String(grid), String(32 * nw), ...cli], { encoding: 'utf8' });
  if (o) console.log(o);
  return args.map((a, i) => (typeof a === 'number' ? a : ((b) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)))(readFileSync(join(dir, `b${i}`)))));
}
const t2 = (k: import('./dsl.js').K, M: number, N: number) => {
  const rm = k.expand(k.arange(M), 1);
  const cn = k.expand(k.arange(N), 0);
  return k.bin('add', k.broadcast(k.bin('mul', rm, k.c(N, 'i32', [M, 1])), [M, N]), k.broadcast(cn, [M, N]));
};
it('copy2d', () => {
  const f = kernel('copy2d', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
    const o = t2(k, 4, 256);
    k.store(k.addptr(out!, o), k.load(k.addptr(x!, o)));
  });
  const x = Float32Array.from({ length: 1024 }, (_, i) => i);
  const [, out] = run(f, [x, new Float32Array(1024)], 1);
  expect(Array.from(out as Float32Array).slice(0, 20)).toEqual(Array.from(x).slice(0, 20));
  expect(Array.from(out as Float32Array)).toEqual(Array.from(x));
});
it('rowsum', () => {
  const f = kernel('rowsum', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
    const o = t2(k, 4, 256);
    const s = k.reduce(k.load(k.addptr(x!, o)), 1, 'add');
    k.store(k.addptr(out!, k.arange(4)), s);
  });
  const x = Float32Array.from({ length: 1024 }, (_, i) => i % 7);
  const [, out] = run(f, [x, new Float32Array(4)], 1);
  const ref = [0, 1, 2, 3].map((r) => x.slice(r * 256, r * 256 + 256).reduce((a, b) => a + b, 0));
  expect(Array.from(out as Float32Array)).toEqual(ref);
});
it('rowbcast', () => {
  const f = kernel('rowbcast', [['x', P('f32')], ['out', P('f32')]], (k, [x, out]) => {
    const o = t2(k, 4, 256);
    const v = k.load(k.addptr(x!, k.arange(4)));
    k.store(k.addptr(out!, o), k.broadcast(k.expand(v, 1), [4, 256]));
  });
  const x = Float32Array.from({ length: 4 }, (_, i) => i + 1);
  const [, out] = run(f, [x, new Float32Array(1024)], 1);
  expect(Array.from(out as Float32Array).filter((_, i) => i % 256 === 0)).toEqual([1, 2, 3, 4]);
  expect(Array.from(out as Float32Array).every((v, i) => v === Math.floor(i / 256) + 1)).toBe(true);
});
it('i8', () => {
  const f = kernel('i8k', [['b', P('i8')], ['o', P('i32')]], (k, [b, o]) => {
    const bi = k.arange(64);
    const bv = k.load(k.addptr(b!, bi));
    k.store(k.addptr(o!, bi), k.cast(bv, 'i32'));
    k.store(k.addptr(b!, bi), k.bin('mul', bv, k.c(3, 'i8', [64])));
  });
  const bb = Int8Array.from({ length: 64 }, (_, i) => i * 5 - 100);
  const r = compile(f, { target: 'sm_80', ptxas: false });
  console.log(r.ptx.split('\n').filter((l) => /s8|u8|mul|cvt/.test(l)).slice(0, 12).join('\n'));
  const dir = mkdtempSync(join(tmpdir(), 'simrun-'));
  writeFileSync(join(dir, 'k.ptx'), r.ptx);
  writeFileSync(join(dir, 'b0'), new Uint8Array(bb.buffer));
  writeFileSync(join(dir, 'b1'), new Uint8Array(256));
  execFileSync('/tmp/simb/harness', [join(dir, 'k.ptx'), 'i8k', '1', '128', `buf:${join(dir, 'b0')}`, `buf:${join(dir, 'b1')}`]);
  const o = readFileSync(join(dir, 'b1'));
  const b2 = readFileSync(join(dir, 'b0'));
  console.log(Array.from(new Int32Array(o.buffer.slice(o.byteOffset, o.byteOffset + 256))).slice(0, 8), Array.from(new Int8Array(b2.buffer.slice(b2.byteOffset, b2.byteOffset + 64))).slice(0, 8));
});

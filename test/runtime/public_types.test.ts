// The kernel's parameters carry through the public types (the `@ts-expect-error` lines are checked
// by `tsc --noEmit` in `npm test`: a line that stopped being an error fails the type check):
// autotune's grid callback sees typed arguments (constexprs included) and `tuned.run` checks its
// arguments; pallasCall resolves with one array for one output shape and a tuple for a tuple.
import { describe, expect, it } from 'vitest';
import { arange, constexpr, defineKernel, load, programId, ptr, store, type Ref } from '../../src/lang/index.js';
import { array, autotune, HostArray, Kernel, kernel, pallasCall, setDeviceAnnouncer, TuningStore, type PallasArray } from '../../src/runtime/index.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

setDeviceAnnouncer(() => {});

const add = kernel({ name: 'typed_add', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, ({ x, out, n, BLOCK }) => {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK)), mask = offs.lt(n);
  store(out.add(offs), load(x.add(offs), { mask }).mul(2), { mask });
});

describe('autotune types', () => {
  it('the grid callback sees numbers, run checks the arguments', async () => {
    const tuned = autotune({ configs: [{ constexprs: { BLOCK: 16 } }, { constexprs: { BLOCK: 32 } }], key: ['n'], device: 'interpret', warmup: 0, rep: 0, maxReps: 1, store: new TuningStore(join(mkdtempSync(join(tmpdir(), 'tessera-types-')), 'tuning')) }, add);
    const x = new Float32Array(40).fill(1), out = new Float32Array(40);
    const seen: number[] = [];
    // a.n / a.BLOCK is number / number: strict tsc accepts the arithmetic (TS2362 before)
    await tuned.run({ x, out, n: 40 }, { grid: (a) => (seen.push(a.BLOCK), Math.ceil(a.n / a.BLOCK)) });
    expect(out.every((v) => v === 2)).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    // @ts-expect-error n is an i32 scalar, not a string
    const bad = () => tuned.run({ x, out, n: '40' }, { grid: 1 });
    // @ts-expect-error out is missing
    const missing = () => tuned.run({ x, n: 40 }, { grid: 1 });
    expect([bad, missing].length).toBe(2);
  });
});

describe('pallasCall result types', () => {
  const body = (x: Ref, o: Ref) => o.store(x.load());
  it('one output shape: one array', async () => {
    const one = pallasCall(body, { outShape: { shape: [4], dtype: 'f32' }, device: 'interpret' });
    const out = await one(array([1, 2, 3, 4], 'f32'));
    const typed: PallasArray = out;
    expect(typed).toBeInstanceOf(HostArray);
    expect((out as HostArray).toArray()).toEqual([1, 2, 3, 4]);
    // @ts-expect-error one array, not a list
    expect(out[0]).toBeUndefined();
  });
  it('a tuple of output shapes: a tuple of that length', async () => {
    const two = pallasCall((x: Ref, o: Ref, p: Ref) => { o.store(x.load()); p.store(x.load().mul(3)); }, {
      outShape: [{ shape: [4], dtype: 'f32' }, { shape: [4], dtype: 'f32' }], device: 'interpret',
    });
    const [a, b] = await two(array([1, 2, 3, 4], 'f32'));
    expect([(a as HostArray).toArray(), (b as HostArray).toArray()]).toEqual([[1, 2, 3, 4], [3, 6, 9, 12]]);
    const r = await two(array([1, 2, 3, 4], 'f32'));
    // @ts-expect-error a pair has no third element
    expect(r[2]).toBeUndefined();
  });
});

describe('kernel(def) wraps a KernelDef (docs/language.md)', () => {
  it('runs it, typed by its parameters', async () => {
    const def = defineKernel({ name: 'relu', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32', B: constexpr() } }, ({ x, out, n, B }) => {
      const offs = programId(0).mul(B).add(arange(0, B)), mask = offs.lt(n);
      store(out.add(offs), load(x.add(offs), { mask }).maximum(0), { mask });
    });
    const relu = kernel(def);
    expect(relu).toBeInstanceOf(Kernel);
    expect(relu.def).toBe(def);
    const out = new Float32Array(4);
    await relu.run({ x: new Float32Array([-1, 2, -3, 4]), out, n: 4, B: 4 }, { grid: 1, device: 'interpret' });
    expect([...out]).toEqual([0, 2, 0, 4]);
    // @ts-expect-error B is a number
    const bad = () => relu.run({ x: out, out, n: 4, B: 'four' }, { grid: 1, device: 'interpret' });
    expect(typeof bad).toBe('function');
  });
});

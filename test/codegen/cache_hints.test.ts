// Cache and eviction hints, as Triton has them: every form PTX can express is emitted exactly
// (golden lines below, assembled by ptxas for sm_80 and sm_90 and run on the sim), a cache
// operator with an eviction priority goes through an L2 cache policy, and anything PTX cannot
// express is refused at trace time with a named error — never dropped.
import { describe, expect, it } from 'vitest';
import { arange, defineKernel, load, programId, ptr, store, type LoadOptions, type StoreOptions } from '../../src/lang/index.js';
import { kernel } from '../../src/runtime/index.js';
import { gate } from './gate.js';
import { simDevice } from '../e2e/helpers.js';

const BLOCK = 512; // 4 f32 per thread at 4 warps: v4 accesses once the pointers are known aligned
const ALIGNED = { x: { divisibleBy16: true }, out: { divisibleBy16: true }, n: { divisibleBy16: true } };

const body = (lo: LoadOptions, so: StoreOptions) => ({ x, out, n }: { x: ReturnType<typeof load>; out: ReturnType<typeof load>; n: ReturnType<typeof load> }) => {
  const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK)), mask = offs.lt(n);
  store(out.add(offs), load(x.add(offs), { mask, ...lo }).mul(2), { mask, ...so });
};
const def = (lo: LoadOptions, so: StoreOptions) =>
  defineKernel({ name: 'hints', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32' } }, body(lo, so) as never);

/**
 * The memory lines of the kernel's PTX, both targets assembled by ptxas. Register numbers are
 * written as `%rd`/`%f`/`%p` (they shift with unrelated codegen); a cache policy's register is
 * checked to be the one its createpolicy defined.
 */
function memLines(lo: LoadOptions, so: StoreOptions): string[] {
  const { sm80, sm90 } = gate(def(lo, so).trace(), { specialization: ALIGNED });
  const lines = (ptx: string) => ptx.split('\n').map((l) => l.trim()).filter((l) => /\b(ld|st)(\.volatile)?\.global|createpolicy/.test(l));
  const raw = lines(sm80.ptx);
  expect(lines(sm90.ptx)).toEqual(raw);
  raw.forEach((l, i) => {
    const def = /^createpolicy\S* (%rd\d+),/.exec(l);
    if (def) expect(raw[i + 1]!.endsWith(`, ${def[1]};`), `${raw[i + 1]} uses ${def[1]}`).toBe(true);
  });
  return raw.map((l) => l.replace(/%(rd|f|p)\d+/g, '%$1'));
}

const LD = (m: string, policy = '') => `@%p ld.global${m}.v4.f32 {%f, %f, %f, %f}, [%rd]${policy};`;
const ST = (m: string, policy = '') => `@%p st.global${m}.v4.f32 [%rd], {%f, %f, %f, %f}${policy};`;

describe('golden PTX for each hint', () => {
  it('no hint', () => {
    expect(memLines({}, {})).toEqual([LD(''), ST('')]);
  });
  it.each(['ca', 'cg', 'cs', 'lu', 'cv'] as const)('load cache operator .%s', (c) => {
    expect(memLines({ cache: c }, {})).toEqual([LD(`.${c}`), ST('')]);
  });
  it.each(['wb', 'cg', 'cs', 'wt'] as const)('store cache operator .%s', (c) => {
    expect(memLines({}, { cache: c })).toEqual([LD(''), ST(`.${c}`)]);
  });
  it.each(['evict_first', 'evict_last', 'evict_normal'] as const)('eviction alone: .L1::%s', (e) => {
    expect(memLines({ eviction: e }, { eviction: e })).toEqual([LD(`.L1::${e}`), ST(`.L1::${e}`)]);
  });
  it('a cache operator with an eviction priority: an L2 cache policy (createpolicy + .L2::cache_hint)', () => {
    expect(memLines({ cache: 'cg', eviction: 'evict_last' }, { cache: 'cs', eviction: 'evict_first' })).toEqual([
      'createpolicy.fractional.L2::evict_last.b64 %rd, 1.0;',
      LD('.cg.L2::cache_hint', ', %rd'),
      'createpolicy.fractional.L2::evict_first.b64 %rd, 1.0;',
      ST('.cs.L2::cache_hint', ', %rd'),
    ]);
    expect(memLines({ cache: 'ca', eviction: 'evict_normal' }, { cache: 'wt', eviction: 'evict_normal' })).toEqual([
      'createpolicy.fractional.L2::evict_normal.b64 %rd, 1.0;',
      LD('.ca.L2::cache_hint', ', %rd'),
      'createpolicy.fractional.L2::evict_normal.b64 %rd, 1.0;',
      ST('.wt.L2::cache_hint', ', %rd'),
    ]);
  });
  it('a volatile load keeps ld.volatile', () => {
    expect(memLines({ volatile: true }, {})).toEqual([LD('').replace('ld.global', 'ld.volatile.global'), ST('')]);
  });
});

describe('hinted kernels run on the sim', () => {
  const forms: [LoadOptions, StoreOptions][] = [
    [{ cache: 'lu' }, { cache: 'wt' }],
    [{ eviction: 'evict_first' }, { eviction: 'evict_last' }],
    [{ cache: 'cs', eviction: 'evict_first' }, { cache: 'cg', eviction: 'evict_last' }],
  ];
  it.each(forms)('%o / %o', async (lo, so) => {
    const k = kernel({ name: 'hints_run', params: { x: ptr('f32'), out: ptr('f32'), n: 'i32' } }, body(lo, so) as never);
    const n = 1000, x = Float32Array.from({ length: n }, (_, i) => i - 300), out = new Float32Array(n);
    await k.run({ x, out, n } as never, { grid: Math.ceil(n / BLOCK), device: simDevice() });
    expect(Array.from(out)).toEqual(Array.from(x, (v) => v * 2));
  });
});

describe('hints PTX cannot express are refused at trace time, naming the option', () => {
  const trace = (lo: unknown, so: unknown) => () => def(lo as LoadOptions, so as StoreOptions).trace();
  it('a store with a load-only cache operator', () => {
    for (const c of ['ca', 'cv', 'lu']) expect(trace({}, { cache: c })).toThrow(new RegExp(`cache '${c}' is a load cache operator; PTX's st takes 'wb', 'cg', 'cs', 'wt'`));
  });
  it('a load with a store-only cache operator', () => {
    for (const c of ['wb', 'wt']) expect(trace({ cache: c }, {})).toThrow(new RegExp(`cache '${c}' is a store cache operator; PTX's ld takes 'ca', 'cg', 'cs', 'lu', 'cv'`));
  });
  it('an unknown cache operator or eviction', () => {
    expect(trace({ cache: 'nc' }, {})).toThrow(/load cache must be one of 'ca', 'cg', 'cs', 'lu', 'cv', got 'nc'/);
    expect(trace({}, { eviction: 'evict_unchanged' })).toThrow(/eviction must be one of 'evict_first', 'evict_last', 'evict_normal'/);
  });
  it('a volatile load with a hint', () => {
    expect(trace({ volatile: true, cache: 'cg' }, {})).toThrow(/a volatile load takes no cache operator \('cg'\)/);
    expect(trace({ volatile: true, eviction: 'evict_last' }, {})).toThrow(/a volatile load takes no eviction hint/);
  });
  it('the errors carry the code and the user source line', () => {
    try {
      trace({}, { cache: 'ca' })();
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'E_ARG' });
      expect(String((e as Error).message)).toMatch(/cache_hints\.test\.ts:\d+/);
    }
  });
});

// The math sequences of src/codegen/math/math.ts: (a) every sequence assembles with ptxas for sm_80 and
// sm_90; (b) the accurate sequences (precise f32, all f64, erf) are run instruction by instruction
// in a tiny evaluator (math-eval.ts) and compared with references; the bounds asserted here are the
// ones docs/math.md states. f32 errors are exact (the double reference is far more accurate than
// f32); f64 errors are measured against V8's Math.* (fdlibm, itself within 1 ulp), erf against an
// exact 192-bit series. (c) the Triton-style f32 fast paths are checked for their structure
// (the .approx instructions modelled as exact) and their instruction choice.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PtxBuilder } from '../../src/codegen/emitter.js';
import { emitUnaryMath, FLOAT_UNARY_FNS, MathLoweringError, type FloatDType } from '../../src/codegen/math/math.js';
import type { UnaryFn } from '../../src/ir/ops.js';
import { compileSeq } from './math-eval.js';
import { erfExact, ulpDistance, ulpVs, type Fmt } from './math-ref.js';

const PTXAS = '/usr/local/cuda/bin/ptxas';

interface Built {
  lines: string[];
  decls: string[];
  src: string;
  dst: string;
}

function build(fn: UnaryFn, dt: FloatDType, precise: boolean): Built {
  const b = new PtxBuilder();
  const src = b.reg(dt);
  const dst = b.reg(dt);
  emitUnaryMath(b, fn, dt, dst, src, precise);
  return { lines: b.lines.map((l) => l.trim()), decls: b.declarations(), src, dst };
}

function run(built: Built, dt: Fmt): (x: number) => number {
  const prog = compileSeq(built.lines);
  const round = dt === 'f32' ? Math.fround : (v: number) => v;
  return (x) => prog({ [built.src]: round(x) }).get(built.dst) as number;
}

/** Deterministic xorshift PRNG in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}
const uniform = (n: number, lo: number, hi: number, seed: number): number[] => {
  const r = rng(seed);
  return Array.from({ length: n }, () => lo + (hi - lo) * r());
};
/** Positive values spread over every binade of the format, subnormals included. */
const allBinades = (n: number, dt: Fmt, seed: number): number[] => {
  const r = rng(seed);
  const [lo, hi] = dt === 'f32' ? [-149, 127] : [-1074, 1023];
  return Array.from({ length: n }, () => (1 + r()) * 2 ** Math.floor(lo + (hi - lo + 1) * r()));
};

// ---------------------------------------------------------------------------------- (a) ptxas

function entry(name: string, fn: UnaryFn, dt: FloatDType, precise: boolean): string {
  const b = new PtxBuilder();
  const pin = b.reg('b64');
  const pout = b.reg('b64');
  const tid = b.reg('b32');
  const off = b.reg('b64');
  const src = b.reg(dt);
  const dst = b.reg(dt);
  const size = dt === 'f32' ? 4 : 8;
  b.emit(`ld.param.u64 ${pin}, [pin];`);
  b.emit(`ld.param.u64 ${pout}, [pout];`);
  b.emit(`mov.u32 ${tid}, %tid.x;`);
  b.emit(`mul.wide.u32 ${off}, ${tid}, ${size};`);
  b.emit(`add.s64 ${pin}, ${pin}, ${off};`);
  b.emit(`add.s64 ${pout}, ${pout}, ${off};`);
  b.emit(`ld.global.${dt} ${src}, [${pin}];`);
  emitUnaryMath(b, fn, dt, dst, src, precise);
  b.emit(`st.global.${dt} [${pout}], ${dst};`);
  b.emit('ret;');
  return [`.visible .entry ${name}(.param .u64 pin, .param .u64 pout)`, '{', ...b.declarations(), ...b.lines, '}'].join('\n');
}

function moduleText(arch: string): string {
  const entries: string[] = [];
  for (const dt of ['f32', 'f64'] as const)
    for (const fn of FLOAT_UNARY_FNS)
      for (const precise of [false, true]) entries.push(entry(`m_${fn}_${dt}_${precise ? 'p' : 'f'}`, fn, dt, precise));
  return [`.version 8.0`, `.target ${arch}`, `.address_size 64`, '', ...entries, ''].join('\n');
}

describe('math sequences assemble', () => {
  it('ptxas is installed', () => {
    expect(existsSync(PTXAS), `ptxas not found at ${PTXAS}: the CUDA toolkit is required for these tests`).toBe(true);
  });
  for (const arch of ['sm_80', 'sm_90']) {
    it(`every function, f32 and f64, fast and precise, for ${arch}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'tessera-math-'));
      try {
        const file = join(dir, 'math.ptx');
        writeFileSync(file, moduleText(arch));
        let log = '';
        try {
          execFileSync(PTXAS, [`-arch=${arch}`, '-o', join(dir, 'math.cubin'), file], { stdio: 'pipe' });
        } catch (err) {
          log = String((err as { stderr?: Buffer }).stderr ?? err);
        }
        expect(log).toBe('');
        expect(existsSync(join(dir, 'math.cubin'))).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

// ------------------------------------------------------------------------------ (b) accuracy

interface Case {
  fn: UnaryFn;
  ref: (x: number) => number;
  points: (dt: Fmt) => number[];
  /** Max ulp error asserted (and documented), per dtype. */
  bound: Record<Fmt, number>;
}

/** Values next to k*pi/2 (where the reduced argument is tiny), rounded to the format by the caller. */
const nearPio2 = (n: number): number[] => Array.from({ length: n }, (_, k) => (Math.PI / 2) * (k + 1) * (k % 2 ? -1 : 1));
/** Range edges: overflow/underflow thresholds, subnormal results, integers for exp2. */
const EDGES: Partial<Record<UnaryFn, Record<Fmt, number[]>>> = {
  exp: { f32: [88.72, 88.7228, 88.73, -87.33, -87.34, -100, -103.2, -103.9, -104.5], f64: [709.78, 709.79, -708.39, -708.4, -720, -744.4, -745.1, -746] },
  exp2: { f32: [127.99, 128, -126, -126.5, -140, -149, -149.5, -150.1, 1, 2, 3, -1], f64: [1023.99, 1024, -1022, -1022.5, -1060, -1074, -1074.6, -1075, 1, 2, 3, -1] },
  tanh: { f32: [0.17, 0.1733, 0.1734, 0.35, 0.3466, 0.3467, 1e-20, 9, 9.1], f64: [0.17, 0.1733, 0.1734, 0.3466, 0.3467, 1e-200, 19, 19.1] },
  sigmoid: { f32: [-87, -88.8, -103, 15, 17, 1e-10], f64: [-708, -709.8, -745, 36, 38, 1e-100] },
  log: { f32: [1, 1 + 2 ** -23, 1 - 2 ** -24, Math.SQRT2, Math.SQRT1_2, 3.4e38], f64: [1, 1 + 2 ** -52, 1 - 2 ** -53, Math.SQRT2, Math.SQRT1_2, 1.7e308] },
  log2: { f32: [1, 2, 1024, 2 ** -140, Math.SQRT2, 1 + 2 ** -23], f64: [1, 2, 1024, 2 ** -1070, Math.SQRT2, 1 + 2 ** -52] },
  sin: { f32: nearPio2(400), f64: nearPio2(400) },
  cos: { f32: nearPio2(400), f64: nearPio2(400) },
};

const sigmoidRef = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

const CASES: Case[] = [
  { fn: 'exp', ref: Math.exp, bound: { f32: 1, f64: 1 },
    points: (dt) => (dt === 'f32' ? [...uniform(2000, -104, 89, 1), ...uniform(300, -1e-3, 1e-3, 2)] : [...uniform(2000, -746, 710, 1), ...uniform(300, -1e-3, 1e-3, 2)]) },
  { fn: 'exp2', ref: (x) => 2 ** x, bound: { f32: 1, f64: 1 },
    points: (dt) => (dt === 'f32' ? uniform(2000, -150, 128, 3) : uniform(2000, -1075, 1024, 3)) },
  { fn: 'log', ref: Math.log, bound: { f32: 1, f64: 1 },
    points: (dt) => [...allBinades(2000, dt, 4), ...uniform(500, 0.5, 2, 5)] },
  { fn: 'log2', ref: Math.log2, bound: { f32: 1.5, f64: 1 },
    points: (dt) => [...allBinades(2000, dt, 6), ...uniform(500, 0.5, 2, 7)] },
  { fn: 'sin', ref: Math.sin, bound: { f32: 1.5, f64: 2 },
    points: (dt) => [...uniform(1500, -10, 10, 8), ...uniform(1000, -1e5, 1e5, 9), ...(dt === 'f32' ? uniform(300, -(2 ** 21), 2 ** 21, 50) : uniform(300, -1e15, 1e15, 50))] },
  { fn: 'cos', ref: Math.cos, bound: { f32: 1.5, f64: 2 },
    points: (dt) => [...uniform(1500, -10, 10, 10), ...uniform(1000, -1e5, 1e5, 11), ...(dt === 'f32' ? uniform(300, -(2 ** 21), 2 ** 21, 50) : uniform(300, -1e15, 1e15, 50))] },
  { fn: 'tanh', ref: Math.tanh, bound: { f32: 2, f64: 2 },
    points: () => [...uniform(2000, -12, 12, 12), ...uniform(300, -0.2, 0.2, 13), ...uniform(200, -25, 25, 14)] },
  { fn: 'sigmoid', ref: sigmoidRef, bound: { f32: 1.5, f64: 1 },
    points: (dt) => (dt === 'f32' ? uniform(2000, -100, 100, 15) : uniform(2000, -740, 740, 15)) },
  { fn: 'sqrt', ref: Math.sqrt, bound: { f32: 0.5, f64: 0.5 }, points: (dt) => allBinades(1000, dt, 16) },
  { fn: 'rsqrt', ref: (x) => 1 / Math.sqrt(x), bound: { f32: 1.5, f64: 1 }, points: (dt) => allBinades(1000, dt, 17) },
  { fn: 'floor', ref: Math.floor, bound: { f32: 0, f64: 0 }, points: () => uniform(500, -1e3, 1e3, 18) },
  { fn: 'ceil', ref: Math.ceil, bound: { f32: 0, f64: 0 }, points: () => uniform(500, -1e3, 1e3, 19) },
  { fn: 'abs', ref: Math.abs, bound: { f32: 0, f64: 0 }, points: () => uniform(200, -1e3, 1e3, 20) },
  { fn: 'neg', ref: (x) => -x, bound: { f32: 0, f64: 0 }, points: () => uniform(200, -1e3, 1e3, 21) },
];

const SPECIAL_INPUTS = [NaN, Infinity, -Infinity, 0, -0];

describe('accurate sequences: max ulp error against references', () => {
  for (const dt of ['f32', 'f64'] as const) {
    for (const c of CASES) {
      it(`${c.fn} ${dt} (precise) within ${c.bound[dt]} ulp`, () => {
        const f = run(build(c.fn, dt, true), dt);
        const round = dt === 'f32' ? Math.fround : (v: number) => v;
        let worst = 0;
        let worstAt = 0;
        for (const p of [...c.points(dt), ...(EDGES[c.fn]?.[dt] ?? [])]) {
          const x = round(p);
          const err = ulpVs(f(x), c.ref(x), dt);
          if (err > worst) [worst, worstAt] = [err, x];
        }
        expect(worst, `${c.fn} ${dt}: ${worst.toFixed(3)} ulp at x=${worstAt}`).toBeLessThanOrEqual(c.bound[dt]);
        for (const x of SPECIAL_INPUTS) {
          const want = c.ref(x);
          const got = f(x);
          if (Number.isNaN(want)) expect(got, `${c.fn}(${x})`).toBeNaN();
          else expect(got, `${c.fn}(${x})`).toBe(round(want));
        }
      });
    }
  }

  // erf has no JS reference: a 192-bit BigInt series (math-ref.ts) gives exact values.
  const erfPoints = (dt: Fmt): number[] => [
    ...uniform(500, -1, 1, 30), ...uniform(600, -(dt === 'f32' ? 4.5 : 6.5), dt === 'f32' ? 4.5 : 6.5, 31),
    ...uniform(100, -1e-4, 1e-4, 32), 0.9999999, 1, 1.0000001,
  ];
  for (const [dt, bound] of [['f32', 1], ['f64', 1]] as const) {
    for (const precise of [false, true]) {
      it(`erf ${dt} (${precise ? 'precise' : 'default'}) within ${bound} ulp of the exact value`, () => {
        const f = run(build('erf', dt, precise), dt);
        const round = dt === 'f32' ? Math.fround : (v: number) => v;
        let worst = 0;
        let worstAt = 0;
        for (const p of erfPoints(dt)) {
          const x = round(p);
          const err = ulpDistance(f(x), erfExact(x), dt);
          if (err > worst) [worst, worstAt] = [err, x];
        }
        expect(worst, `erf ${dt}: ${worst.toFixed(3)} ulp at x=${worstAt}`).toBeLessThanOrEqual(bound);
        expect(f(NaN)).toBeNaN();
        expect(f(Infinity)).toBe(1);
        expect(f(-Infinity)).toBe(-1);
        expect(Object.is(f(-0), -0)).toBe(true);
      });
    }
  }
});

// --------------------------------------------------------------------------- (c) fast paths

describe('f32 fast paths (Triton default lowering)', () => {
  const uses: [UnaryFn, string][] = [
    ['exp', 'ex2.approx.f32'], ['exp2', 'ex2.approx.f32'], ['log', 'lg2.approx.f32'], ['log2', 'lg2.approx.f32'],
    ['sqrt', 'sqrt.approx.f32'], ['rsqrt', 'rsqrt.approx.f32'], ['sin', 'sin.approx.f32'], ['cos', 'cos.approx.f32'],
    ['tanh', 'tanh.approx.f32'], ['sigmoid', 'div.full.f32'], ['floor', 'cvt.rmi.f32.f32'], ['ceil', 'cvt.rpi.f32.f32'],
  ];
  for (const [fn, insn] of uses) {
    it(`${fn} uses ${insn} and, with it modelled as exact, stays within 8 ulp on [-10, 10]`, () => {
      const built = build(fn, 'f32', false);
      expect(built.lines.some((l) => l.startsWith(insn + ' '))).toBe(true);
      const f = run(built, 'f32');
      const c = CASES.find((k) => k.fn === fn)!;
      const pts = fn === 'log' || fn === 'log2' || fn === 'sqrt' || fn === 'rsqrt' ? uniform(500, 1e-3, 10, 40) : uniform(500, -10, 10, 41);
      for (const p of pts) {
        const x = Math.fround(p);
        expect(ulpVs(f(x), c.ref(x), 'f32'), `${fn}(${x})`).toBeLessThanOrEqual(8);
      }
    });
  }
  it('precise f32 and all f64 sequences use no .approx instruction', () => {
    for (const fn of FLOAT_UNARY_FNS) {
      for (const [dt, precise] of [['f32', true], ['f64', false], ['f64', true]] as const) {
        const approx = build(fn, dt, precise).lines.filter((l) => l.includes('.approx') || l.includes('.full'));
        expect(approx, `${fn} ${dt}`).toEqual([]);
      }
    }
  });
});

describe('bad input', () => {
  it('`not` on a float is a MathLoweringError naming the function and dtype', () => {
    const b = new PtxBuilder();
    const err = (() => {
      try {
        emitUnaryMath(b, 'not', 'f32', b.reg('f32'), b.reg('f32'), false);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(MathLoweringError);
    expect((err as MathLoweringError).code).toBe('E_COMPILE');
    expect((err as Error).message).toContain("'not' on f32");
  });
});

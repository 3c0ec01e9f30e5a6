// inlineAsmElementwise (Triton's inline_asm_elementwise) compiled for sm_80 and sm_90a and run on
// the sim (every compile also passes ptxas for both targets), against plain-JS references: 32-bit
// int and f32 asm, broadcast arguments, several outputs, and packed 8- and 16-bit elements. The
// interpreter refuses the kernel by name; bad constraint strings fail at trace time.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { describe, expect, it } from 'vitest';
import { arange, constexpr, dot, expandDims, forLoop, inlineAsmElementwise, load, ptr, store, zeros } from '../../src/lang/index.js';
import { kernel, type Kernel } from '../../src/runtime/kernel.js';
import type { DType } from '../../src/ir/types.js';
import type { LaunchArg } from '../../src/runtime/device.js';
import { launchSpecialization } from '../../src/runtime/native/runtime-device.js';
import { expectBitwise, lcg, runOn, runSimCompiled } from './helpers.js';
import { SIM_TARGETS } from './lang_targets.js';
import { compile } from '../../src/compile/compile.js';

/** Runs `k` (positional args, constexprs in `cx`) on the sim as sm_80 and sm_90a. */
function runSim(k: Kernel, args: LaunchArg[], cx: Record<string, number> = {}, numWarps = 4): Record<string, LaunchArg[]> {
  const f = k.trace(cx);
  const out: Record<string, LaunchArg[]> = {};
  for (const target of SIM_TARGETS) {
    const copy = args.map((a) => (ArrayBuffer.isView(a) ? (a as unknown as { slice(): LaunchArg }).slice() : a));
    out[target] = runSimCompiled(f, copy, 1, { target, numWarps, specialization: launchSpecialization(f, copy) });
  }
  return out;
}

const u32s = (n: number, seed: number): Uint32Array => {
  const r = lcg(seed);
  return Uint32Array.from({ length: n }, () => Math.floor(r() * 2 ** 32));
};

/** One-input, one-output asm over a 1-D tile of `t`. */
const unaryAsm = (name: string, t: DType, asm: string, cons: string, pack = 1) => kernel(
  { name, params: { x: ptr(t), y: ptr(t), BLOCK: constexpr() } },
  ({ x, y, BLOCK }) => {
    const i = arange(0, BLOCK as number);
    store(y.add(i), inlineAsmElementwise(asm, cons, [load(x.add(i))], { dtype: t, isPure: true, pack }));
  },
);

describe('32-bit asm', () => {
  it('shl.b32 on i32', () => {
    const x = Int32Array.from(u32s(256, 1));
    const out = runSim(unaryAsm('asm_shl', 'i32', 'shl.b32 $0, $1, 3;', '=r,r'), [x, new Int32Array(256)], { BLOCK: 256 });
    for (const t of SIM_TARGETS) expectBitwise(out[t]![1] as Int32Array, x.map((v) => v << 3), t);
  });
  it('prmt.b32 byte reversal on u32 (no trailing semicolon)', () => {
    const x = u32s(256, 2);
    const rev = (v: number) => (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;
    const out = runSim(unaryAsm('asm_prmt', 'u32', 'prmt.b32 $0, $1, 0, 0x0123', '=r,r'), [x, new Uint32Array(256)], { BLOCK: 256 });
    for (const t of SIM_TARGETS) expectBitwise(out[t]![1] as Uint32Array, x.map(rev), t);
  });
  it('lop3.b32 (majority) of three u32 arguments', () => {
    const k = kernel({ name: 'asm_lop3', params: { a: ptr('u32'), b: ptr('u32'), c: ptr('u32'), y: ptr('u32'), BLOCK: constexpr() } },
      ({ a, b, c, y, BLOCK }) => {
        const i = arange(0, BLOCK as number);
        const args = [load(a.add(i)), load(b.add(i)), load(c.add(i))];
        store(y.add(i), inlineAsmElementwise('lop3.b32 $0, $1, $2, $3, 0xE8;', '=r,r,r,r', args, { dtype: 'u32', isPure: true }));
      });
    const [a, b, c] = [u32s(128, 3), u32s(128, 4), u32s(128, 5)];
    const out = runSim(k, [a, b, c, new Uint32Array(128)], { BLOCK: 128 });
    const want = a.map((v, i) => ((v & b[i]!) | (v & c[i]!) | (b[i]! & c[i]!)) >>> 0);
    for (const t of SIM_TARGETS) expectBitwise(out[t]![3] as Uint32Array, want, t);
  });
  it('f32 fma with broadcast arguments ([M,1], [1,N] and a JS number) and its own .reg scope', () => {
    const M = 16, N = 32;
    const k = kernel({ name: 'asm_f32', params: { a: ptr('f32'), b: ptr('f32'), y: ptr('f32') } },
      ({ a, b, y }) => {
        const r = arange(0, M), c = arange(0, N);
        const col = expandDims(load(a.add(r)), 1), row = expandDims(load(b.add(c)), 0);
        const asm = '{ .reg .f32 t; mul.rn.f32 t, $1, $2; add.rn.f32 $0, t, $3; }';
        const v = inlineAsmElementwise(asm, '=f,f,f,f', [col, row, 0.5], { dtype: 'f32', isPure: true });
        store(y.add(expandDims(r, 1).mul(N).add(expandDims(c, 0))), v);
      });
    const a = Float32Array.from({ length: M }, (_, i) => i * 1.25 - 7), b = Float32Array.from({ length: N }, (_, j) => 3 - j * 0.375);
    const want = Float32Array.from({ length: M * N }, (_, n) => Math.fround(Math.fround(a[Math.floor(n / N)]! * b[n % N]!) + 0.5));
    const out = runSim(k, [a, b, new Float32Array(M * N)]);
    for (const t of SIM_TARGETS) expectBitwise(out[t]![2] as Float32Array, want, t);
  });
});

describe('several outputs', () => {
  it('dtype as a list returns one tile per output (sum and difference, i32)', () => {
    const k = kernel({ name: 'asm_two', params: { a: ptr('i32'), b: ptr('i32'), s: ptr('i32'), d: ptr('i32') } },
      ({ a, b, s, d }) => {
        const i = arange(0, 128);
        const [sum, diff] = inlineAsmElementwise('add.s32 $0, $2, $3; sub.s32 $1, $2, $3;', '=r,=r,r,r', [load(a.add(i)), load(b.add(i))], { dtype: ['i32', 'i32'], isPure: true });
        store(s.add(i), sum!);
        store(d.add(i), diff!);
      });
    const a = Int32Array.from(u32s(128, 6)), b = Int32Array.from(u32s(128, 7));
    const out = runSim(k, [a, b, new Int32Array(128), new Int32Array(128)]);
    for (const t of SIM_TARGETS) {
      expectBitwise(out[t]![2] as Int32Array, a.map((v, i) => (v + b[i]!) | 0), `${t} sum`);
      expectBitwise(out[t]![3] as Int32Array, a.map((v, i) => (v - b[i]!) | 0), `${t} diff`);
    }
  });
});

describe('packed elements', () => {
  // 1024 elements at 4 warps: 8 a thread, two full packs of 4; 64 elements: one a thread, a pack
  // padded with zeros whose results are dropped.
  for (const BLOCK of [1024, 64]) {
    it(`u8, 4 per 32-bit register: per-byte xor and and/or as two outputs (BLOCK ${BLOCK})`, () => {
      const k = kernel({ name: 'asm_u8', params: { a: ptr('u8'), b: ptr('u8'), x: ptr('u8'), n: ptr('u8'), o: ptr('u8'), BLOCK: constexpr() } },
        ({ a, b, x, n, o, BLOCK }) => {
          const i = arange(0, BLOCK as number);
          const va = load(a.add(i)), vb = load(b.add(i));
          store(x.add(i), inlineAsmElementwise('xor.b32 $0, $1, 0x80C0E0F0;', '=r,r', [va], { dtype: 'u8', isPure: true, pack: 4 }));
          const [and, or] = inlineAsmElementwise('and.b32 $0, $2, $3; or.b32 $1, $2, $3;', '=r,=r,r,r', [va, vb], { dtype: ['u8', 'u8'], isPure: true, pack: 4 });
          store(n.add(i), and!);
          store(o.add(i), or!);
        });
      const a = Uint8Array.from(u32s(BLOCK, 8), (v) => v & 255), b = Uint8Array.from(u32s(BLOCK, 9), (v) => v & 255);
      const out = runSim(k, [a, b, new Uint8Array(BLOCK), new Uint8Array(BLOCK), new Uint8Array(BLOCK)], { BLOCK });
      // byte k of each register meets byte k of the constant: the element's position in its pack
      // is not observable to a truly elementwise asm, so the reference xors with each byte and
      // the test checks the set of outcomes position-free where the constant's bytes differ.
      for (const t of SIM_TARGETS) {
        const got = out[t]![2] as Uint8Array;
        got.forEach((g, i) => expect([0xf0, 0xe0, 0xc0, 0x80].includes(g ^ a[i]!), `${t} xor ${i}`).toBe(true));
        expectBitwise(out[t]![3] as Uint8Array, a.map((v, i) => v & b[i]!), `${t} and`);
        expectBitwise(out[t]![4] as Uint8Array, a.map((v, i) => v | b[i]!), `${t} or`);
      }
    });
  }
  it('i8, 4 per register: results sign-extend (xor 0x80 flips the sign of each byte)', () => {
    const x = Int8Array.from({ length: 512 }, (_, i) => (i * 37) % 256 - 128);
    const out = runSim(unaryAsm('asm_i8', 'i8', 'xor.b32 $0, $1, 0x80808080;', '=r,r', 4), [x, new Int8Array(512)], { BLOCK: 512 });
    for (const t of SIM_TARGETS) expectBitwise(out[t]![1] as Int8Array, x.map((v) => v ^ -128), t);
  });
  it('f16, 2 per register: negation by flipping both sign bits', () => {
    const x = Uint16Array.from({ length: 512 }, (_, i) => (i * 2654435761) >>> 16);
    const out = runSim(unaryAsm('asm_f16', 'f16', 'xor.b32 $0, $1, 0x80008000;', '=r,r', 2), [x, new Uint16Array(512)], { BLOCK: 512 });
    for (const t of SIM_TARGETS) expectBitwise(out[t]![1] as Uint16Array, x.map((v) => v ^ 0x8000), t);
  });
  it('i16, 2 per register: a .b32 xor acts on each half, results sign-extend', () => {
    const x = Int16Array.from({ length: 256 }, (_, i) => i * 251 - 30000);
    const out = runSim(unaryAsm('asm_i16', 'i16', 'xor.b32 $0, $1, 0x7FFF7FFF;', '=r,r', 2), [x, new Int16Array(256)], { BLOCK: 256 });
    for (const t of SIM_TARGETS) expectBitwise(out[t]![1] as Int16Array, x.map((v) => v ^ 0x7fff), t);
  });
});

describe('inside a dot loop', () => {
  // f16 a tile negated by packed asm before a tensor-core dot in a pipelined loop, the f32 mma
  // accumulator negated back by asm: bit-identical to the same kernel without the asm (both exact).
  const mm = (asm: boolean) => kernel({ name: `asm_mm_${asm}`, params: { a: ptr('f16'), b: ptr('f16'), c: ptr('f32') } },
    ({ a, b, c }) => {
      const r = arange(0, 64), rk = arange(0, 32);
      const [acc] = forLoop(0, 128, 32, [zeros([64, 64], 'f32')], (k, acc) => {
        const ka = k.add(rk);
        let ta = load(a.add(r.expandDims(1).mul(128).add(ka.expandDims(0))));
        if (asm) ta = inlineAsmElementwise('xor.b32 $0, $1, 0x80008000;', '=r,r', [ta], { dtype: 'f16', isPure: true, pack: 2 });
        const tb = load(b.add(ka.expandDims(1).mul(64).add(r.expandDims(0))));
        return [dot(ta, tb, { acc: acc! })];
      });
      const out = asm ? inlineAsmElementwise('neg.f32 $0, $1;', '=f,f', [acc!], { dtype: 'f32', isPure: true }) : acc!;
      store(c.add(r.expandDims(1).mul(64).add(r.expandDims(0))), out);
    });
  it('equals the kernel without the asm, bit for bit, on sm_80 and sm_90a', () => {
    const half = (n: number, seed: number) => Uint16Array.from(u32s(n, seed), (v) => 0x3800 + (v % 0x800) + (v & 0x10000 ? 0x8000 : 0));
    const a = half(64 * 128, 21), b = half(128 * 64, 22);
    const got = runSim(mm(true), [a, b, new Float32Array(64 * 64)]);
    const want = runSim(mm(false), [a, b, new Float32Array(64 * 64)]);
    for (const t of SIM_TARGETS) {
      expect((want[t]![2] as Float32Array).some((v) => v !== 0), t).toBe(true);
      expectBitwise(got[t]![2] as Float32Array, want[t]![2] as Float32Array, t);
    }
  });
});

it('an asm with isPure: false stays when its result is unused; a pure one is dropped', () => {
  const k = (isPure: boolean) => kernel({ name: 'asm_effect', params: { x: ptr('i32') } }, ({ x }) => {
    inlineAsmElementwise('mov.b32 $0, $1; // MARKER\nadd.s32 $0, $0, 1', '=r,r', [load(x)], { dtype: 'i32', isPure });
  }).trace();
  for (const target of SIM_TARGETS) {
    expect(compile(k(false), { target, ptxas: true }).ptx, target).toContain('// MARKER'); // ptxas-clean, comment and all
    expect(compile(k(true), { target, ptxas: false }).ptx, target).not.toContain('// MARKER');
  }
});

describe('refusals', () => {
  it('the interpreter refuses the kernel by name, before any program runs', async () => {
    const x = new Int32Array(64), y = new Int32Array(64).fill(7);
    await expect(runOn('interpret', unaryAsm('asm_interp', 'i32', 'shl.b32 $0, $1, 3;', '=r,r'), { x, y, BLOCK: 64 }, 1))
      .rejects.toThrow(/inlineAsmElementwise runs inline PTX, which only compiled devices/);
    expect(y.every((v) => v === 7)).toBe(true);
  });
  const bad = (t: DType, asm: string, cons: string, opts: Record<string, unknown> = {}) =>
    () => kernel({ name: 'asm_bad', params: { x: ptr(t) } }, ({ x }) => {
      inlineAsmElementwise(asm, cons, [load(x)], { dtype: t, ...opts } as never);
    }).trace();
  it('bad constraint strings, widths, packs, operand references and options fail at trace time', () => {
    expect(bad('i32', 'mov.b32 $0, $1;', '=r,q')).toThrow(/constraint 1 'q' in "=r,q" is not one of/);
    expect(bad('i32', 'mov.b32 $0, $1;', 'r,=r')).toThrow(/output constraint 1 '=r' in "r,=r" follows an input/);
    expect(bad('i32', 'mov.b32 $0, $1;', 'r')).toThrow(/name no output/);
    expect(bad('i32', 'mov.b32 $0, $1;', '=r,r,r')).toThrow(/2 input constraint\(s\) for 1 argument\(s\)/);
    expect(bad('i32', 'mov.b32 $0, $1;', '=r')).toThrow(/0 input constraint\(s\) for 1 argument\(s\)/);
    expect(bad('f16', 'mov.b32 $0, $1;', '=r,r')).toThrow(/output 0 \(f16, pack 1\) needs a 16-bit register, but its constraint 'r' is 32-bit/);
    expect(bad('u8', 'mov.b32 $0, $1;', '=r,r', { pack: 3 })).toThrow(/pack must be 1, 2 or 4, got 3/);
    expect(bad('i32', 'mov.b32 $0, $2;', '=r,r')).toThrow(/the asm names \$2, but there are only 2 operands/);
    expect(bad('i32', 'mov.b32 $0, $1;', '=r,r', { pure: true })).toThrow(/unknown option 'pure'/);
    expect(bad('bool', 'mov.b32 $0, $1;', '=r,r')).toThrow(/dtype bool, which inline asm does not take/);
  });
});

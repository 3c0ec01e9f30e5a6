import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { CompileError, PtxasError } from '../../src/compiler/errors.js';
import { findPtxas, parsePtxasLog, runPtxas } from '../../src/codegen/ptxas.js';
import { kernel, P } from './dsl.js';
import { vectorAdd } from './kernels.js';
import { gate } from './gate.js';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('errors and options', () => {
  afterEach(() => {
    delete process.env.TESSERA_DUMP_DIR;
  });
  it('rejects bad options naming them', () => {
    const f = vectorAdd();
    expect(() => compile(f, { target: 'sm_70' as never })).toThrow(/option 'target'/);
    expect(() => compile(f, { target: 'sm_80', numWarps: 3 })).toThrow(/option 'numWarps'/);
    expect(() => compile(f, { target: 'sm_80', specialization: { nope: { divisibleBy16: true } } })).toThrow(/unknown parameter 'nope'/);
    expect(codeOf(() => compile(f, { target: 'sm_80', numWarps: 64 }))).toBe('E_COMPILE');
  });
  it('an op/dtype without a template is an error naming both, with the source line', () => {
    const f = kernel('bad', [['x', P('f32')]], (k, [x]) => {
      const v = k.load(k.addptr(x!, k.arange(128)));
      k.store(k.addptr(x!, k.arange(128)), k.bin('shl', v, v));
    });
    let err: unknown;
    try {
      compile(f, { target: 'sm_80', ptxas: false, skipIRPasses: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CompileError);
    expect((err as CompileError).message).toMatch(/kernel 'bad', op 'binary': binary 'shl' is not defined for dtype f32 \(at \/test\/kernel\.ts:\d+:1\)/);
  });
  it('non power-of-two tiles are rejected before emission', () => {
    const f = kernel('odd', [['x', P('f32')]], (k, [x]) => {
      k.store(k.addptr(x!, k.arange(100)), k.c(0, 'f32', [100]));
    });
    expect(() => compile(f, { target: 'sm_80', ptxas: false, skipIRPasses: true })).toThrow(/powers of two/);
  });
  it('ptxas: missing binary is a clear PtxasError; bad PTX carries the log', () => {
    expect(() => runPtxas('.version 8.0', 'sm_80', null)).toThrow(PtxasError);
    expect(() => runPtxas('.version 8.0', 'sm_80', null)).toThrow(/ptxas not found/);
    expect(findPtxas({ PATH: '/nonexistent', CUDA_HOME: '/nonexistent' }, [])).toBeUndefined();
    expect(findPtxas({ PATH: '', CUDA_HOME: '/usr/local/cuda' }, [])).toBe('/usr/local/cuda/bin/ptxas');
    let log = '';
    try {
      runPtxas('.version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.op; }', 'sm_80');
    } catch (e) {
      log = (e as PtxasError).log;
      expect((e as PtxasError).code).toBe('E_PTXAS');
    }
    expect(log).toMatch(/bogus/);
  });
  it('parses ptxas -v', () => {
    const info = parsePtxasLog("ptxas info    : Function properties for k\n    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\nptxas info    : Used 42 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]");
    expect(info).toEqual({ registers: 42, spillStores: 4, spillLoads: 12, sharedBytes: 2048, stackBytes: 8 });
  });
  it('TESSERA_DUMP_DIR receives every stage', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-dump-'));
    try {
      process.env.TESSERA_DUMP_DIR = dir;
      const r = compile(vectorAdd(), { target: 'sm_90', ptxas: false });
      const files = readdirSync(join(dir, 'add.sm_90'));
      expect(files).toHaveLength(r.stages.length);
      expect(files.some((f) => f.endsWith('-ptx.ptx'))).toBe(true);
      expect(files.some((f) => f.endsWith('-layouts.txt'))).toBe(true);
      const ptx = files.find((f) => f.endsWith('.ptx'))!;
      expect(readFileSync(join(dir, 'add.sm_90', ptx), 'utf8')).toBe(r.ptx);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('stages name the IR passes and analyses in order', () => {
    const r = compile(vectorAdd(), { target: 'sm_80', ptxas: false });
    const names = r.stages.map((s) => s.name);
    expect(names[0]).toBe('input');
    expect(names.slice(-4)).toEqual(['axisinfo', 'pipeline', 'layouts', 'ptx']);
  });
  it('equalsOne folds an integer parameter to 1', () => {
    const f = kernel('stride', [['x', P('f32')], ['s', 'i32']], (k, [x, s]) => {
      const offs = k.bin('mul', k.arange(128), k.splat(s!, [128]));
      k.store(k.addptr(x!, offs), k.c(1, 'f32', [128]));
    });
    const { sm80 } = gate(f, { specialization: { x: { divisibleBy16: true }, s: { equalsOne: true } } });
    expect(sm80.ptx).not.toMatch(/ld\.param\.u32/);
    expect(sm80.metadata.params).toHaveLength(2); // the launcher still passes every argument
  });
  it('device print goes through vprintf; a failed assert prints its lane and calls __assertfail', () => {
    const f = kernel('dbg', [['x', P('i32')]], (k, [x]) => {
      const v = k.load(k.addptr(x!, k.arange(64)));
      k.b.op('print', [v], [], { prefix: 'v=', hex: false });
      k.b.op('assert', [k.cmp('ge', v, k.c(0, 'i32', [64]))], [], { message: 'negative' });
    });
    const { sm90 } = gate(f);
    expect(sm90.ptx).toMatch(/call\.uni \(ret\), vprintf/);
    expect(sm90.ptx).toMatch(/\.global \.align 1 \.b8 \$tessera_str_0/);
    expect(sm90.ptx).not.toMatch(/\btrap;/);
    expect(sm90.ptx).toMatch(/\.extern \.func __assertfail\(/);
    expect(sm90.ptx).toMatch(/call\.uni __assertfail, \(a0, a1, a2, a3, a4\);/);
    // the host decodes the device's lines by these sites (runtime/native/device_prints.ts)
    expect(sm90.metadata.prints).toEqual([
      { kind: 'print', prefix: 'v=', hex: false, dtypes: ['i32'], shape: [64] },
      { kind: 'assert', message: 'negative', shape: [64], loc: expect.objectContaining({ line: expect.any(Number) }) },
    ]);
  });
});

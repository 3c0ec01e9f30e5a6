// Runs one foreign-PTX corpus case (test/corpus/kernels/<name>: kernel.ptx, case.json, data.bin) on
// the sim through the addon's driver API and compares its outputs with the stored reference;
// shared by corpus.test.ts (sm_80 / sm_90a kernels, the sim as sm_90) and corpus-sm100.test.ts
// (sm_100a kernels, the sim as sm_100).
import type { DevicePtrHandle, Driver } from '../../src/runtime/native/addon.js';
import { ptxEntries } from '../../src/runtime/native/ptx_signature.js';
import { elementBytes, mismatches, type Tolerance } from './compare.js';

export interface BufferArg { kind: 'buffer'; dtype: string; count: number; input?: number; expect?: number; tol?: Tolerance }
/**
 * A CUtensorMap passed by value (`.param .align 64 .b8 [128]`), as Triton's launcher passes a host
 * TensorDescriptor: the buffer it describes is allocated like a buffer arg, and the map over it is
 * encoded through the driver's cuTensorMapEncodeTiled with these arguments (cuda.h's order).
 */
interface TensorMapArg extends Omit<BufferArg, 'kind'> {
  kind: 'tensormap';
  map: { dataType: number; dims: number[]; strides: number[]; box: number[]; elementStrides: number[];
    interleave: number; swizzle: number; l2Promotion: number; oobFill: number };
}
interface ScratchArg { kind: 'scratch'; bytes: number }
interface ScalarArg { kind: 'scalar'; value: string | number }
export interface Case {
  name: string; source: string; entry: string; grid: number[]; block: number[]; shared: number;
  args: (BufferArg | TensorMapArg | ScratchArg | ScalarArg)[];
}

/** What happened to one kernel: it passed, or where it failed and the message. */
export type Outcome = { stage: 'pass' } | { stage: 'load' | 'launch' | 'result'; message: string };

function writeScalar(view: DataView, at: number, type: string, value: string | number): void {
  const kind = type[0];
  const bits = Number(type.slice(1));
  if (kind === 'f') {
    if (bits === 32) view.setFloat32(at, Number(value), true);
    else if (bits === 64) view.setFloat64(at, Number(value), true);
    else throw new Error(`unsupported scalar param type ${type}`);
    return;
  }
  const v = BigInt(value);
  const mask = (1n << BigInt(bits)) - 1n;
  const u = v & mask;
  if (bits === 8) view.setUint8(at, Number(u));
  else if (bits === 16) view.setUint16(at, Number(u), true);
  else if (bits === 32) view.setUint32(at, Number(u), true);
  else view.setBigUint64(at, u, true);
}

export function run(drv: Driver, c: Case, ptx: string, data: Uint8Array): Outcome {
  const params = ptxEntries(ptx).get(c.entry);
  if (!params) throw new Error(`${c.name}: no .entry ${c.entry} in the PTX`);
  if (params.length !== c.args.length) {
    throw new Error(`${c.name}: the entry has ${params.length} params, the case ${c.args.length} args`);
  }
  let mod;
  try {
    mod = drv.moduleLoadData(ptx);
  } catch (e) {
    return { stage: 'load', message: (e as Error).message };
  }
  const allocs: DevicePtrHandle[] = [];
  try {
    const fn = drv.getFunction(mod, c.entry);
    if (c.shared > 48 * 1024) drv.setMaxDynamicShared(fn, c.shared);
    const size = params.length ? params[params.length - 1]!.offset + params[params.length - 1]!.size : 0;
    const bytes = new Uint8Array(Math.max(size, 1));
    const view = new DataView(bytes.buffer);
    const bufs: (DevicePtrHandle | null)[] = [];
    c.args.forEach((a, i) => {
      const p = params[i]!;
      if (a.kind === 'scalar') {
        writeScalar(view, p.offset, `${p.type[0] === 'f' ? 'f' : 'u'}${p.size * 8}`, a.value);
        bufs.push(null);
        return;
      }
      const n = a.kind === 'scratch' ? a.bytes : a.count * elementBytes(a.dtype);
      if (a.kind === 'tensormap') {
        if (p.size !== 128) throw new Error(`${c.name}: param ${p.name} is not a 128-byte tensor map`);
        if (!drv.tensorMapEncodeTiled) throw new Error('the addon has no tensorMapEncodeTiled (rebuild it: npm install)');
        const ptr = drv.memAlloc(n);
        allocs.push(ptr);
        drv.memsetD8(ptr, 0);
        if (a.input !== undefined) drv.memcpyHtoD(ptr, data.subarray(a.input, a.input + n));
        const m = a.map;
        const map = drv.tensorMapEncodeTiled(m.dataType, m.dims.length, ptr.address, m.dims, m.strides, m.box, m.elementStrides,
          m.interleave, m.swizzle, m.l2Promotion, m.oobFill);
        bytes.set(map, p.offset);
        bufs.push(ptr);
        return;
      }
      if (p.size !== 8) throw new Error(`${c.name}: param ${p.name} is not a pointer`);
      if (n === 0) {
        view.setBigUint64(p.offset, 0n, true);
        bufs.push(null);
        return;
      }
      const ptr = drv.memAlloc(n);
      allocs.push(ptr);
      drv.memsetD8(ptr, 0);
      if (a.kind === 'buffer' && a.input !== undefined) drv.memcpyHtoD(ptr, data.subarray(a.input, a.input + n));
      view.setBigUint64(p.offset, ptr.address, true);
      bufs.push(ptr);
    });
    try {
      drv.launch(fn, c.grid, c.block, c.shared, null, bytes, params.map((p) => p.offset));
      drv.synchronize();
    } catch (e) {
      return { stage: 'launch', message: (e as Error).message + (drv.lastFault() ? `: ${drv.lastFault()}` : '') };
    }
    const problems: string[] = [];
    c.args.forEach((a, i) => {
      if ((a.kind !== 'buffer' && a.kind !== 'tensormap') || a.expect === undefined) return;
      const n = a.count * elementBytes(a.dtype);
      const got = new Uint8Array(n);
      drv.memcpyDtoH(got, bufs[i]!);
      const bad = mismatches(a.dtype, got, data.subarray(a.expect, a.expect + n), a.tol ?? ['exact']);
      if (bad.length) problems.push(`arg ${i} (${params[i]!.name}, ${a.dtype}): ${bad.join('; ')}`);
    });
    return problems.length ? { stage: 'result', message: problems.join('\n') } : { stage: 'pass' };
  } finally {
    // after a launch fault the context's error is sticky and these fail too (the sabotage cases
    // then open a fresh driver); the outcome already says what happened
    try {
      for (const p of allocs) drv.memFree(p);
      drv.moduleUnload(mod);
    } catch (e) {
      if (!/CUDA_ERROR_/.test((e as Error).message)) throw e;
    }
  }
}

export function describeOutcome(o: Outcome): string {
  return o.stage === 'pass' ? 'passes' : `fails at ${o.stage}: ${o.message}`;
}

// Test helpers: walk IR ops, find ops by kind, and run a kernel body in a throwaway trace.
import type { Block, Func, Op, OpKind } from '../../src/ir/ops.js';
import { defineKernel, ptr, type KernelParamSpec, type KernelArgs } from '../../src/lang/index.js';

/** Every op in a block, regions included (pre-order). */
export function allOps(block: Block): Op[] {
  const out: Op[] = [];
  for (const op of block.ops) {
    out.push(op);
    for (const r of op.regions) out.push(...allOps(r));
  }
  return out;
}

export const opsOf = <K extends OpKind>(f: Func, kind: K): Op<K>[] => allOps(f.body).filter((o): o is Op<K> => o.kind === kind);
export const kinds = (f: Func): string[] => allOps(f.body).map((o) => o.kind);

/** Traces a one-off kernel with a few standard params around `body`. */
export function traceBody(body: (a: KernelArgs<typeof stdParams>) => void, name = 'k'): Func {
  return defineKernel({ name, params: stdParams }, body).trace({});
}
const stdParams = {
  xf: ptr('f32'), xh: ptr('f16'), xi: ptr('i32'), xu8: ptr('u8'), xb: ptr('bool'), xi64: ptr('i64'),
  n: 'i32', f: 'f32',
} satisfies Record<string, KernelParamSpec>;

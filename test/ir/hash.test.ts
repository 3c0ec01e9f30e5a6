import { describe, expect, test } from 'vitest';
import { hashFunc } from '../../src/ir/hash.js';
import type { Func, Op } from '../../src/ir/ops.js';
import { loopsKernel, vectorAdd } from './build.js';

/** A copy of `f` where the first op of kind `kind` in the body is replaced by `edit(op)`. */
function editFirst(f: Func, kind: string, edit: (op: Op) => Op): Func {
  let done = false;
  const ops = f.body.ops.map((op) => {
    if (done || op.kind !== kind) return op;
    done = true;
    return edit(op);
  });
  expect(done).toBe(true);
  return { ...f, body: { args: f.body.args, ops } };
}

describe('hashFunc', () => {
  test('is a sha256 hex digest, equal for the same structure built with other ids', () => {
    const h = hashFunc(vectorAdd(128));
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashFunc(vectorAdd(128, 9))).toBe(h);
    expect(hashFunc(loopsKernel({ skipIds: 3 }))).toBe(hashFunc(loopsKernel()));
  });

  test('ignores source locations', () => {
    expect(hashFunc(loopsKernel({ loc: true }))).toBe(hashFunc(loopsKernel()));
  });

  test('ignores attribute key order', () => {
    const f = vectorAdd(128);
    const g = editFirst(f, 'arange', (op) => ({ ...op, attrs: { end: 128, start: 0 } }));
    expect(hashFunc(g)).toBe(hashFunc(f));
  });

  test('changes when anything semantic changes', () => {
    const f = vectorAdd(128);
    const base = hashFunc(f);
    const variants: Func[] = [
      vectorAdd(64),
      { ...f, name: 'add2' },
      { ...f, constexprs: { BLOCK: 256 } },
      { ...f, params: f.params.map((p, i) => (i === 0 ? { ...p, name: 'a' } : p)) },
      editFirst(f, 'program_id', (op) => ({ ...op, attrs: { axis: 1 } })),
      editFirst(f, 'const', (op) => ({ ...op, attrs: { value: 127 } })),
      editFirst(f, 'load', (op) => ({ ...op, attrs: { ...(op.attrs as object), cache: 'cg' } as Op['attrs'] })),
      editFirst(f, 'binary', (op) => ({ ...op, operands: [op.operands[1]!, op.operands[0]!] })),
      editFirst(f, 'cmp', (op) => ({ ...op, attrs: { pred: 'le' } })),
    ];
    const hashes = variants.map(hashFunc);
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});

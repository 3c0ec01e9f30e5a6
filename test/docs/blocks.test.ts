// The docs harness's reader (blocks.ts): fence attributes, units, preludes and output blocks.
import { describe, expect, it } from 'vitest';
import { moduleSource, runs, unitsOf } from './blocks.js';

const md = [
  '# t', '```ts', 'const a = 1;', '```', 'text', '```ts continues', 'console.log(a);', '```',
  '```text output', '1', '```', '<!-- prelude: declare const q: number;', 'declare const r: number; -->', '```ts no-run', 'q + r;', '```',
  '```ts signature', 'f(x?)', '```', '```sh', 'ls', '```',
].join('\n');

describe('docs harness: blocks', () => {
  it('groups continued blocks into one unit, attaches output, reads multi-line preludes, skips signatures', () => {
    const us = unitsOf('x.md', md);
    expect(us.map((u) => [u.line, u.blocks.length, runs(u)])).toEqual([[2, 2, true], [14, 1, false]]);
    expect(us[0]!.output).toEqual({ line: 9, text: '1\n' });
    expect(moduleSource(us[0]!, true).text).toBe('const a = 1;\nconsole.log(a);\nexport {};\n');
    const second = moduleSource(us[1]!, false);
    expect(second.text).toBe('declare const q: number;\ndeclare const r: number;\nq + r;\nexport {};\n');
    expect(second.origin[2]).toBe('x.md:15');
  });
  it('rejects unknown attributes and orphan markers, naming the line', () => {
    expect(() => unitsOf('x.md', '```ts norun\n1;\n```\n')).toThrow(/x\.md:1: unknown ts fence attribute 'norun'/);
    expect(() => unitsOf('x.md', '```ts continues\n1;\n```\n')).toThrow(/x\.md:1: a 'ts continues' block with no ts block before it/);
    expect(() => unitsOf('x.md', '```text output\n1\n```\n')).toThrow(/x\.md:1: an output block with no ts block before it/);
  });
  it('a unit runs up to its first no-run block', () => {
    const [u] = unitsOf('x.md', '```ts\nconst a = 1;\n```\n```ts continues no-run\nfetchFromGpu();\n```\n');
    expect(moduleSource(u!, true).text).toBe('const a = 1;\nexport {};\n');
    expect(moduleSource(u!, false).text).toContain('fetchFromGpu();');
  });
});

// dropDeadCode (codegen/dead_code.ts): pure instructions whose result no line reads go, chains of
// them go, anything with an effect, a guard, a carry or several destinations stays.
import { describe, expect, it } from 'vitest';
import { dropDeadCode } from '../../src/codegen/dead_code.js';

const run = (src: string): string[] => {
  const lines = src.trim().split('\n').map((l) => `\t${l.trim()}`);
  dropDeadCode(lines);
  return lines.map((l) => l.trim());
};

describe('dropDeadCode', () => {
  it('removes a dead chain and keeps what a store reads', () => {
    expect(run(`
      add.s32 %r1, %r0, 1;
      add.s32 %r2, %r1, 2;
      mad.wide.s32 %rd1, %r2, 2, %rd0;
      add.s32 %r3, %r0, 3;
      st.global.b32 [%rd0], %r3;`)).toEqual(['add.s32 %r3, %r0, 3;', 'st.global.b32 [%rd0], %r3;']);
  });
  it('keeps a register read before its definition in the text (a loop back edge)', () => {
    const src = `
      mov.b32 %r1, 0;
      $L_top:
      st.global.b32 [%rd0], %r1;
      add.s32 %r1, %r1, 1;
      add.s32 %r2, %r1, 5;
      bra.uni $L_top;`;
    expect(run(src)).toContain('add.s32 %r1, %r1, 1;');
    expect(run(src)).not.toContain('add.s32 %r2, %r1, 5;');
  });
  it('an unpack into halves goes when neither half is read, stays when one is', () => {
    expect(run(`
      mov.b32 {%h1, %h2}, %r0;
      mov.b32 {%h3, %h4}, %r0;
      st.global.b16 [%rd0], %h4;`)).toEqual(['mov.b32 {%h3, %h4}, %r0;', 'st.global.b16 [%rd0], %h4;']);
  });
  it('keeps guarded, two-predicate and carry instructions, and loads', () => {
    const src = `
      @%p1 mov.b32 %r1, 0;
      setp.lt.s32 %p2|%p3, %r0, 1;
      add.cc.u32 %r4, %r0, 1;
      ld.global.b32 %r5, [%rd0];`;
    expect(run(src)).toEqual(src.trim().split('\n').map((l) => l.trim()));
  });
});

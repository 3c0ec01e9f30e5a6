// The memory checker's PTX line -> the user's file:line:col through the `.loc` in force there.
import { describe, expect, it } from 'vitest';
import { leadWithSource, ptxLineSource, withSourceLocation } from '../../src/runtime/native/fault_source.js';

const PTX = [
  '.version 8.0',                                   // 1
  '.target sm_80',                                  // 2
  '.visible .entry first(.param .u64 p)',           // 3
  '{',                                              // 4
  '.loc 1 10 3',                                    // 5
  'ld.param.u64 %rd1, [p];',                        // 6
  '.loc 2 20 7',                                    // 7
  'st.global.u32 [%rd1], 0;',                       // 8
  'ret;',                                           // 9
  '}',                                              // 10
  '.visible .entry second()',                       // 11
  '{',                                              // 12
  'ret;',                                           // 13
  '}',                                              // 14
  '.file 1 "/src/a.ts"',                            // 15
  '.file 2 "/src/with \\"quote\\".ts"',              // 16
].join('\n');

describe('ptxLineSource', () => {
  it('takes the last .loc before the line', () => {
    expect(ptxLineSource(PTX, 6)).toEqual({ file: '/src/a.ts', line: 10, col: 3 });
    expect(ptxLineSource(PTX, 8)).toEqual({ file: '/src/with "quote".ts', line: 20, col: 7 });
    expect(ptxLineSource(PTX, 9)).toEqual({ file: '/src/with "quote".ts', line: 20, col: 7 });
  });
  it('does not carry a .loc into the next function, and ignores lines out of range', () => {
    expect(ptxLineSource(PTX, 13)).toBeUndefined();
    expect(ptxLineSource(PTX, 2)).toBeUndefined();
    expect(ptxLineSource(PTX, 0)).toBeUndefined();
    expect(ptxLineSource(PTX, 99)).toBeUndefined();
  });
  it('adds the source beside the PTX line of a report, and leaves other reports unchanged', () => {
    expect(withSourceLocation("fault in kernel 'first' at PTX line 8, CTA (0,0,0)", PTX))
      .toBe("fault in kernel 'first' at PTX line 8 (/src/with \"quote\".ts:20:7), CTA (0,0,0)");
    expect(withSourceLocation("fault at PTX line 13, CTA", PTX)).toBe('fault at PTX line 13, CTA');
    expect(withSourceLocation('no line here', PTX)).toBe('no line here');
  });
});

describe('leadWithSource', () => {
  const driver = 'cuEventCreate failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)';
  it("puts the user's line first, then the report, then the driver call that returned the fault", () => {
    const r = leadWithSource(`${driver}\ntessera-sim: out-of-bounds global access in kernel 'first' at PTX line 8, CTA (0,0,0) thread (1,0,0): 4-byte write`, PTX);
    expect(r.message).toBe(
      `/src/with "quote".ts:20:7: tessera-sim: out-of-bounds global access in kernel 'first' at PTX line 8 (/src/with "quote".ts:20:7), CTA (0,0,0) thread (1,0,0): 4-byte write\n${driver}`,
    );
    expect(r.loc).toEqual({ file: '/src/with "quote".ts', line: 20, col: 7 });
  });
  it('keeps the order when the report has no source line, and leaves messages without a report alone', () => {
    const unlocated = `${driver}\ntessera-sim: trap in kernel 'second' at PTX line 13, CTA (0,0,0)`;
    expect(leadWithSource(unlocated, PTX)).toEqual({ message: unlocated });
    expect(leadWithSource(driver, PTX)).toEqual({ message: driver });
  });
});

// The host side of device prints (runtime/native/device_prints.ts): the sim's records are parsed
// without ever reading past the buffer, decoded against the kernel's sites, ordered as the
// interpreter prints; a CUDA_ERROR_ASSERT without a record (the real driver) still is E_ASSERT.
import { describe, expect, it } from 'vitest';
import type { DeviceSite } from '../../src/codegen/print_sites.js';
import { DeviceAssertError } from '../../src/interpret/errors.js';
import { assertError, deviceOutput, parseRecords, type DeviceRecord } from '../../src/runtime/native/device_prints.js';

const SITES: DeviceSite[] = [
  { kind: 'print', prefix: 'v=', hex: false, dtypes: ['f32'], shape: [4] },
  { kind: 'assert', message: 'small', shape: [4], loc: { file: '/app/k.ts', line: 9, col: 5 } },
];

/** A record as lower_print.ts packs it: u32 words, a double at 8-aligned `f64At`, then seq and site. */
function record(pid: number[], words: number[], value: number | undefined, seq: number, site: number, text = 'device text\n'): DeviceRecord {
  let off = (pid.length + words.length) * 4;
  if (value !== undefined) off = Math.ceil(off / 8) * 8 + 8;
  const args = new DataView(new ArrayBuffer(off + 8));
  [...pid, ...words].forEach((w, i) => args.setUint32(i * 4, w, true));
  if (value !== undefined) args.setFloat64(off - 8, value, true);
  args.setUint32(off, seq, true);
  args.setUint32(off + 4, site, true);
  return { ctaid: [pid[0]!, pid[1]!, pid[2]!], tid: [0, 0, 0], text, args: new Uint8Array(args.buffer) };
}

function serialize(rs: DeviceRecord[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: number[] = [];
  for (const r of rs) {
    const text = enc.encode(r.text);
    const head = new DataView(new ArrayBuffer(32));
    [...r.ctaid, ...r.tid, text.length, r.args.length].forEach((w, i) => head.setUint32(i * 4, w, true));
    parts.push(...new Uint8Array(head.buffer), ...text, ...r.args);
  }
  return Uint8Array.from(parts);
}

describe('device prints on the host', () => {
  it('parses what the sim writes, and stops at a truncated record', () => {
    const rs = [record([0, 0, 0], [1], 0.1, 1, 0), record([1, 0, 0], [0], 2, 1, 0)];
    const bytes = serialize(rs);
    expect(parseRecords(bytes)).toEqual(rs);
    expect(parseRecords(bytes.subarray(0, bytes.length - 3))).toEqual([rs[0]]);
    expect(parseRecords(new Uint8Array(7))).toEqual([]);
  });

  it("orders by program (x fastest), op count, lane, and formats as the interpreter", () => {
    const out = deviceOutput([
      record([1, 0, 0], [0], 1, 1, 0), record([0, 0, 0], [2], 0.1, 2, 0), record([0, 0, 0], [3], -2.5, 1, 0),
      record([0, 1, 0], [0], 3, 1, 0), record([0, 0, 0], [1], Math.fround(1 / 3), 1, 0),
    ], SITES);
    expect(out.lines).toEqual([
      'pid (0, 0, 0) idx (1) v=0.33333334', // an f32 arrives widened to a double: its shortest f32 decimal
      'pid (0, 0, 0) idx (3) v=-2.5',
      'pid (0, 0, 0) idx (2) v=0.1',
      'pid (1, 0, 0) idx (0) v=1',
      'pid (0, 1, 0) idx (0) v=3',
    ]);
    expect(out.failed).toBeUndefined();
  });

  it('keeps foreign records as their text, and a record naming no site', () => {
    const out = deviceOutput([record([0, 0, 0], [0], 1, 1, 7, 'hello\n')], SITES);
    expect(out.lines).toEqual(['hello']);
  });

  it("a failed assert: the interpreter's error, and only the lines before it", () => {
    const out = deviceOutput([
      record([0, 0, 0], [0], 1, 1, 0), record([0, 0, 0], [3], undefined, 2, 1), record([0, 0, 0], [1], undefined, 2, 1),
      record([0, 0, 0], [0], 1, 3, 0), record([1, 0, 0], [0], 1, 1, 0),
    ], SITES);
    expect(out.lines).toEqual(['pid (0, 0, 0) idx (0) v=1']);
    const e = assertError('k', SITES, out.failed, { code: 'CUDA_ERROR_ASSERT' });
    expect(e).toBeInstanceOf(DeviceAssertError);
    expect(e!.message).toBe("kernel 'k': assertion failed in program (0, 0, 0), lane 1 [1]: small (at /app/k.ts:9:5)");
    expect([e!.code, e!.pid, e!.lane]).toEqual(['E_ASSERT', [0, 0, 0], 1]);
  });

  it('without a record (the real driver): E_ASSERT with the message and line the kernel has', () => {
    const e = assertError('k', SITES, undefined, { code: 'CUDA_ERROR_ASSERT' });
    expect(e!.code).toBe('E_ASSERT');
    expect(e!.message).toBe("kernel 'k': assertion failed: small (CUDA_ERROR_ASSERT; the device printed the program and lane on stdout) (at /app/k.ts:9:5)");
    expect(e!.pid).toBeUndefined();
    const two = assertError('k', [...SITES, { kind: 'assert', message: 'other', shape: [] }], undefined, { code: 'CUDA_ERROR_ASSERT' });
    expect(two!.message).toBe("kernel 'k': one of its assertions failed (CUDA_ERROR_ASSERT; the device printed the program and lane on stdout): 'small' (/app/k.ts:9:5), 'other'");
    expect(assertError('k', [SITES[0]!], undefined, {})).toBeUndefined();
  });
});

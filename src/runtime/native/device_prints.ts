// The device's prints and failed asserts, turned back into what the interpreter delivers.
// The sim keeps each vprintf call of a launch (tesseraSimTakePrints: the thread, the text, the
// argument bytes); the two words lower_print.ts passes after the format's arguments name the print
// site (the kernel's metadata says its prefix, dtypes and shape) and the thread's count of
// print/assert ops so far. The host formats each value as the interpreter does and orders the
// lines as it does: program by program (x fastest), op by op, element by element (row-major).
import type { DeviceSite } from '../../codegen/print_sites.js';
import { argBytes } from '../../codegen/print_sites.js';
import { indexString } from '../../interpret/arrays.js';
import { DeviceAssertError, assertDetail, locString } from '../../interpret/errors.js';
import { formatFloat } from '../../interpret/rules-control.js';
import { BYTES } from '../../ir/dtype_arrays.js';
import { isPtr, type DType, type ElemType } from '../../ir/types.js';

/** One vprintf call as the sim kept it. */
export interface DeviceRecord {
  readonly ctaid: readonly [number, number, number];
  readonly tid: readonly [number, number, number];
  /** The text the sim formatted (what stdout would have shown). */
  readonly text: string;
  /** The argument bytes the format consumed, then the two trailing words. */
  readonly args: Uint8Array;
}

/** Parses tesseraSimTakePrints' records (docs/sim.md). */
export function parseRecords(bytes: Uint8Array): DeviceRecord[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: DeviceRecord[] = [];
  const dec = new TextDecoder();
  let p = 0;
  while (p + 32 <= bytes.byteLength) {
    const u = (k: number): number => v.getUint32(p + 4 * k, true);
    const textLen = u(6);
    const argLen = u(7);
    const at = p + 32;
    if (at + textLen + argLen > bytes.byteLength) break; // truncated: never read past the buffer
    out.push({
      ctaid: [u(0), u(1), u(2)],
      tid: [u(3), u(4), u(5)],
      text: dec.decode(bytes.subarray(at, at + textLen)),
      args: bytes.slice(at + textLen, at + textLen + argLen),
    });
    p = at + textLen + argLen;
  }
  return out;
}

/** A record decoded against the kernel's sites. */
interface Decoded {
  readonly pid: readonly [number, number, number];
  readonly seq: number;
  readonly lane: number;
  readonly site: DeviceSite;
  readonly line: string;
}

function formatValue(t: ElemType, hex: boolean, v: DataView, at: number): string {
  if (isPtr(t)) return `0x${v.getBigUint64(at, true).toString(16)}`;
  const d = t as DType;
  const bytes = argBytes(t, hex);
  if (hex) {
    const digits = BYTES[d] * 2;
    const word = bytes === 8 ? v.getBigUint64(at, true) : BigInt(v.getUint32(at, true));
    return `0x${(word & ((1n << BigInt(digits * 4)) - 1n)).toString(16).padStart(digits, '0')}`;
  }
  if (d === 'f32' || d === 'f64' || d === 'f16' || d === 'bf16') return formatFloat(v.getFloat64(at, true), d);
  if (d === 'i64') return String(v.getBigInt64(at, true));
  if (d === 'u32' || d === 'u8') return String(v.getUint32(at, true));
  if (d === 'bool') return v.getUint32(at, true) ? 'true' : 'false';
  return String(v.getInt32(at, true));
}

/** Decodes one record; undefined when it is not one of this kernel's sites (then its text stands). */
function decode(r: DeviceRecord, sites: readonly DeviceSite[]): Decoded | undefined {
  const n = r.args.byteLength;
  if (n < 20) return undefined;
  const v = new DataView(r.args.buffer, r.args.byteOffset, n);
  const seq = v.getUint32(n - 8, true);
  const site = sites[v.getUint32(n - 4, true)];
  if (!site) return undefined;
  const pid = [v.getUint32(0, true), v.getUint32(4, true), v.getUint32(8, true)] as const;
  if (site.kind === 'assert') {
    if (n < 24) return undefined;
    const lane = v.getUint32(12, true);
    return { pid, seq, lane, site, line: assertDetail(pid, lane, site.shape, site.message) };
  }
  const rank = site.shape.length;
  let off = 12;
  let lane = 0;
  const idx: number[] = [];
  for (let d = 0; d < rank; d++, off += 4) {
    const i = v.getUint32(off, true);
    idx.push(i);
    lane = lane * site.shape[d]! + i;
  }
  const vals: string[] = [];
  for (const t of site.dtypes) {
    const b = argBytes(t, site.hex);
    off = Math.ceil(off / b) * b;
    if (off + b > n - 8) return undefined;
    vals.push(formatValue(t, site.hex, v, off));
    off += b;
  }
  const head = `pid (${pid.join(', ')})`;
  const text = vals.join(', ');
  const line = rank ? `${head} idx (${indexString(site.shape, lane)}) ${site.prefix}${text}` : `${head} ${site.prefix}${text}`;
  return { pid, seq, lane, site, line };
}

const before = (a: Decoded, b: Decoded): number =>
  a.pid[2] - b.pid[2] || a.pid[1] - b.pid[1] || a.pid[0] - b.pid[0] || a.seq - b.seq || a.lane - b.lane;

export interface DeviceOutput {
  /** The print lines in the interpreter's order. */
  readonly lines: string[];
  /** The failed assert the interpreter would report first, if a record says one failed. */
  readonly failed?: { readonly pid: readonly [number, number, number]; readonly lane: number; readonly seq: number; readonly site: DeviceSite };
}

/**
 * The lines of one launch's records. When an assert failed, only the lines the interpreter would
 * have delivered before raising it: earlier programs', and the failing program's before the assert.
 */
export function deviceOutput(records: readonly DeviceRecord[], sites: readonly DeviceSite[]): DeviceOutput {
  const decoded: Decoded[] = [];
  const foreign: string[] = [];
  for (const r of records) {
    const d = decode(r, sites);
    if (d) decoded.push(d);
    else foreign.push(r.text.replace(/\n$/, ''));
  }
  decoded.sort(before);
  const fail = decoded.find((d) => d.site.kind === 'assert');
  const prints = decoded.filter((d) => d.site.kind === 'print' && (!fail || before(d, fail) < 0));
  const lines = [...prints.map((d) => d.line), ...foreign];
  return fail ? { lines, failed: { pid: fail.pid, lane: fail.lane, seq: fail.seq, site: fail.site } } : { lines };
}

/**
 * The E_ASSERT error for a launch that ended with CUDA_ERROR_ASSERT. With the failing record (the
 * sim): the interpreter's message, program and lane. Without (the real driver: the device wrote its
 * line to stdout): the assert's message and source when the kernel has one assert, else all of them.
 */
export function assertError(kernel: string, sites: readonly DeviceSite[], failed: DeviceOutput['failed'], cause: unknown): DeviceAssertError | undefined {
  if (failed && failed.site.kind === 'assert') {
    const s = failed.site;
    return new DeviceAssertError(assertDetail(failed.pid, failed.lane, s.shape, s.message), s.message, {
      kernel, ...(s.loc ? { loc: s.loc } : {}), pid: [...failed.pid], lane: failed.lane,
    }, cause);
  }
  const asserts = sites.filter((s) => s.kind === 'assert');
  if (!asserts.length) return undefined;
  const driver = `(${(cause as { code?: string })?.code ?? 'CUDA_ERROR_ASSERT'}; the device printed the program and lane on stdout)`;
  if (asserts.length === 1) {
    const s = asserts[0]!;
    return new DeviceAssertError(`assertion failed: ${s.message} ${driver}`, s.message, { kernel, ...(s.loc ? { loc: s.loc } : {}) }, cause);
  }
  const which = asserts.map((s) => `'${s.message}'${s.loc ? ` (${locString(s.loc)})` : ''}`).join(', ');
  return new DeviceAssertError(`one of its assertions failed ${driver}: ${which}`, '', { kernel }, cause);
}

// A flat simulated device address space for the interpreter. Each allocation owns its own
// ArrayBuffer; addresses come from a bump pointer and are never reused, so a freed buffer stays
// recognisable (use-after-free is reported as such) and every address maps to at most one buffer.
import type { DType } from '../ir/types.js';
import { TesseraError } from '../lang/errors.js';

export type ElemArray =
  | Float64Array | Float32Array | Uint16Array | BigInt64Array | Int32Array
  | Int16Array | Int8Array | Uint32Array | Uint8Array;

export interface Allocation {
  readonly base: number;
  readonly size: number;
  /** Emptied when freed (the address stays known, so a use after free is reported as such). */
  bytes: Uint8Array;
  freed: boolean;
  /** Typed views of `bytes`, one per dtype, created on first use. */
  views: Partial<Record<DType, ElemArray>>;
}

/** The typed array type that holds one dtype (f16/bf16 as bit patterns, bool as bytes 0/1). */
export function arrayCtorFor(d: DType): { new (n: number): ElemArray; new (b: ArrayBuffer, off: number, n: number): ElemArray } {
  switch (d) {
    case 'f64': return Float64Array;
    case 'f32': return Float32Array;
    case 'f16': case 'bf16': return Uint16Array;
    case 'i64': return BigInt64Array;
    case 'i32': return Int32Array;
    case 'i16': return Int16Array;
    case 'i8': return Int8Array;
    case 'u32': return Uint32Array;
    case 'u8': case 'bool': return Uint8Array;
  }
}

const FIRST_ADDRESS = 0x1_0000_0000; // far from 0 so small integers are never valid pointers
const GUARD = 256; // gap between allocations so an overrun never lands in the next buffer

export class HostMemory {
  private next = FIRST_ADDRESS;
  /** Allocations sorted by base (bases only grow). */
  private readonly allocs: Allocation[] = [];
  private last: Allocation | undefined;

  /** Allocates `bytes` zeroed bytes; returns the device address (never 0, a multiple of `align`). */
  alloc(bytes: number, align = 256): number {
    if (!Number.isInteger(bytes) || bytes < 0) throw new TesseraError('E_ARG', `HostMemory.alloc: bad size ${bytes}`);
    if (!Number.isInteger(align) || align <= 0 || (align & (align - 1)) !== 0) {
      throw new TesseraError('E_ARG', `HostMemory.alloc: alignment ${align} is not a power of two`);
    }
    const base = Math.ceil(this.next / align) * align;
    const a: Allocation = { base, size: bytes, bytes: new Uint8Array(bytes), freed: false, views: {} };
    this.allocs.push(a);
    this.next = base + Math.max(bytes, 1) + GUARD;
    return base;
  }

  free(addr: number): void {
    const a = this.allocs[this.indexAtOrBelow(addr)];
    if (!a || a.base !== addr) throw new TesseraError('E_ARG', `HostMemory.free: 0x${addr.toString(16)} is not an allocation`);
    if (a.freed) throw new TesseraError('E_ARG', `HostMemory.free: 0x${addr.toString(16)} freed twice`);
    a.freed = true;
    a.bytes = new Uint8Array(0);
    a.views = {};
  }

  /** The bytes of the (live) allocation starting at `addr`. */
  view(addr: number): Uint8Array {
    const a = this.allocs[this.indexAtOrBelow(addr)];
    if (!a || a.base !== addr || a.freed) {
      throw new TesseraError('E_ARG', `HostMemory.view: 0x${addr.toString(16)} is not a live allocation`);
    }
    return a.bytes;
  }

  /** Allocates a buffer holding a copy of `data`; returns its address. */
  upload(data: ArrayBufferView): number {
    const addr = this.alloc(data.byteLength);
    this.view(addr).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return addr;
  }

  /** Copies the allocation at `addr` into `into` (byte-for-byte, `into.byteLength` bytes). */
  download(addr: number, into: ArrayBufferView): void {
    const src = this.view(addr);
    if (into.byteLength > src.byteLength) throw new TesseraError('E_ARG', 'HostMemory.download: destination larger than allocation');
    new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(src.subarray(0, into.byteLength));
  }

  /** The allocation whose [base, base+size) holds `addr` (freed ones included), if any. */
  find(addr: number): Allocation | undefined {
    const l = this.last;
    if (l && addr >= l.base && addr < l.base + l.size) return l;
    const a = this.allocs[this.indexAtOrBelow(addr)];
    if (a && addr < a.base + a.size) {
      this.last = a;
      return a;
    }
    return undefined;
  }

  /** A short description of the buffer nearest to `addr`, for error messages. */
  describeNearest(addr: number): string {
    const i = this.indexAtOrBelow(addr);
    const cands = [this.allocs[i], this.allocs[i + 1]].filter((a): a is Allocation => a !== undefined);
    if (!cands.length) return 'no buffers are allocated';
    const dist = (a: Allocation) => (addr < a.base ? a.base - addr : Math.max(0, addr - (a.base + a.size - 1)));
    const best = cands.reduce((x, y) => (dist(y) < dist(x) ? y : x));
    const rel = addr - best.base;
    const state = best.freed ? 'freed ' : '';
    return `nearest buffer: ${state}0x${best.base.toString(16)} (${best.size} bytes), address is at offset ${rel}`;
  }

  /** A typed view of allocation `a` for dtype `d`. */
  viewOf(a: Allocation, d: DType): ElemArray {
    let v = a.views[d];
    if (!v) {
      const C = arrayCtorFor(d);
      const n = Math.floor(a.size / BYTES[d]);
      v = new C(a.bytes.buffer as ArrayBuffer, a.bytes.byteOffset, n);
      a.views[d] = v;
    }
    return v;
  }

  private indexAtOrBelow(addr: number): number {
    let lo = 0;
    let hi = this.allocs.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.allocs[mid]!.base <= addr) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }
}

export const BYTES: Record<DType, number> = {
  f64: 8, f32: 4, f16: 2, bf16: 2, i64: 8, i32: 4, i16: 2, i8: 1, u32: 4, u8: 1, bool: 1,
};

// A flat simulated device address space for the interpreter. Each allocation owns its own
// ArrayBuffer; addresses come from a bump pointer and are never reused, so a freed buffer stays
// recognisable (use-after-free is reported as such) and every address maps to at most one buffer.
import type { DType } from '../ir/types.js';
import { arrayCtorFor, BYTES, type ElemArray } from '../ir/dtype_arrays.js';
import { TesseraError } from '../ir/errors.js';

export interface Allocation {
  readonly base: number;
  readonly size: number;
  /** Emptied when freed (the address stays known, so a use after free is reported as such). */
  bytes: Uint8Array;
  freed: boolean;
  /** Typed views of `bytes`, one per dtype, created on first use. */
  views: Partial<Record<DType, ElemArray>>;
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

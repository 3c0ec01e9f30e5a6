// The mbarrier area at the end of the shared buffer (codegen/render.ts): 8 bytes per barrier and
// nothing after it, as Triton 3.8's allocation ends (an mbarrier is a .b64 object, 8-byte aligned).
// Before, the area was rounded up to 16 bytes, so an odd number of barriers cost 8 bytes more. The
// buffers before it keep their own alignment: the TMA destination at the scratch's start stays
// 1024-aligned and the barriers start on an 8-byte (here 16-byte) boundary of the scratch's end.
import { describe, expect, it } from 'vitest';
import { constexpr, defineKernel, makeTensorDescriptor, programId, ptr } from '../../src/lang/index.js';
import { compile } from '../../src/compile/compile.js';
import { count } from './gate.js';

// one TMA load (one mbarrier) and a TMA store (a bulk group, no mbarrier)
const copy1 = defineKernel(
  { name: 'tcopy1', params: { x: ptr('f16'), y: ptr('f16'), M: 'i32', N: 'i32', BM: constexpr(), BN: constexpr() } },
  ({ x, y, M, N, BM, BN }) => {
    const dx = makeTensorDescriptor(x, [M, N], [N, 1], [BM as number, BN as number]);
    const dy = makeTensorDescriptor(y, [M, N], [N, 1], [BM as number, BN as number]);
    const om = programId(0).mul(BM);
    dy.store([om, 0], dx.load([om, 0]).mul(2));
  },
);

describe('mbarrier area: 8 bytes a barrier, not rounded to 16', () => {
  for (const target of ['sm_90a', 'sm_100a'] as const) {
    it(`${target}: one barrier after a 4096-byte scratch makes a 4104-byte buffer (was 4112)`, () => {
      const r = compile(copy1.trace({ BM: 32, BN: 64 }), { target, ptxas: true });
      const ptx = r.ptx;
      expect(count(ptx, /mbarrier\.init\.shared::cta\.b64/)).toBe(1);
      // the barrier's place: the scratch's end, 8-byte aligned
      const at = [...ptx.matchAll(/mov\.u32 %r\d+, tessera_smem\+(\d+);/g)].map((m) => Number(m[1]));
      expect(at).toEqual([4096]);
      expect(at[0]! % 8).toBe(0);
      // the buffer ends at the barrier's last byte: nothing is placed after it
      expect(r.metadata.sharedBytes).toBe(4096 + 8);
      expect(ptx).toContain('.shared .align 1024 .b8 tessera_smem[4104];');
      // the TMA destination (the scratch's start, the buffer's symbol) keeps its 1024 alignment
      expect(ptx).toMatch(/mov\.u32 %r\d+, tessera_smem;/);
      expect(ptx).toMatch(/cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global/);
      expect(r.metadata.ptxasLog).toBeDefined();
    });
  }
});

// The .cta_group every tcgen05 instruction of a kernel names (PTX ISA: one per kernel; ptxas and
// the sim refuse a mix): 2 where the kernel's dot runs on a CTA pair (pipeline/tcgen05_pair.ts
// decides it before anything is lowered), else 1.
import type { Lowering } from '../context.js';

const groups = new WeakMap<Lowering, 2>();
export function setPairKernel(cx: Lowering): void {
  groups.set(cx, 2);
}
export const ctaGroup = (cx: Lowering): 1 | 2 => groups.get(cx) ?? 1;

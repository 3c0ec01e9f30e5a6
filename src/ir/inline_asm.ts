// Constraint strings of `inline_asm` (Triton's inline_asm_elementwise): "=r,=r,r,h" lists the
// outputs (with '=') first, then one entry per input. The letters are PTX/LLVM register classes;
// each operand register holds `pack` elements, so its width must be pack x the element's bits.
// Shared by the front end (errors at trace time), the verifier and the code generator.
import type { DType } from './types.js';

export type AsmRegClass = 'r' | 'h' | 'l' | 'f' | 'd';
/** Bits of each register class ('r' and 'f' are 32-bit, 'h' 16, 'l' and 'd' 64). */
export const ASM_CLASS_BITS: Record<AsmRegClass, number> = { h: 16, r: 32, f: 32, l: 64, d: 64 };

export interface AsmConstraints {
  readonly outputs: AsmRegClass[];
  readonly inputs: AsmRegClass[];
}

/** Bits of one element of `d` as an asm operand (bool and pointers are refused by the callers). */
export const ASM_ELEM_BITS: Partial<Record<DType, number>> = {
  f64: 64, i64: 64, f32: 32, i32: 32, u32: 32, f16: 16, bf16: 16, i16: 16, i8: 8, u8: 8,
};

/** Parses a constraint string; returns an error message instead when it is malformed. */
export function parseAsmConstraints(s: string): AsmConstraints | string {
  const parts = s.split(',').map((p) => p.trim());
  const outputs: AsmRegClass[] = [];
  const inputs: AsmRegClass[] = [];
  for (const [i, p] of parts.entries()) {
    const out = p.startsWith('=');
    const letter = out ? p.slice(1) : p;
    if (!(letter in ASM_CLASS_BITS)) {
      return `constraint ${i} '${p}' in "${s}" is not one of =r, =h, =l, =f, =d (outputs) or r, h, l, f, d (inputs)`;
    }
    if (out && inputs.length > 0) return `output constraint ${i} '${p}' in "${s}" follows an input; outputs come first`;
    (out ? outputs : inputs).push(letter as AsmRegClass);
  }
  if (outputs.length === 0) return `constraints "${s}" name no output (an output is written '=r')`;
  return { outputs, inputs };
}

/**
 * Checks constraints against the operand dtypes and `pack`, and the asm's `$n` references against
 * the operand count; returns an error message or undefined.
 */
export function checkAsm(asm: string, cons: AsmConstraints, outs: readonly DType[], ins: readonly DType[], pack: number): string | undefined {
  if (![1, 2, 4].includes(pack)) return `pack must be 1, 2 or 4, got ${pack}`;
  if (cons.outputs.length !== outs.length) return `${cons.outputs.length} output constraint(s) for ${outs.length} output dtype(s)`;
  if (cons.inputs.length !== ins.length) return `${cons.inputs.length} input constraint(s) for ${ins.length} argument(s)`;
  const all = [...outs.map((d, i) => ['output', i, d, cons.outputs[i]!] as const), ...ins.map((d, i) => ['argument', i, d, cons.inputs[i]!] as const)];
  for (const [what, i, d, c] of all) {
    const bits = ASM_ELEM_BITS[d];
    if (bits === undefined) return `${what} ${i} has dtype ${d}, which inline asm does not take`;
    if (bits * pack !== ASM_CLASS_BITS[c]) {
      return `${what} ${i} (${d}, pack ${pack}) needs a ${bits * pack}-bit register, but its constraint '${c}' is ${ASM_CLASS_BITS[c]}-bit`;
    }
  }
  for (const m of asm.matchAll(/\$(\d+)/g)) {
    if (Number(m[1]) >= all.length) return `the asm names $${m[1]}, but there are only ${all.length} operands ($0..$${all.length - 1})`;
  }
  return undefined;
}

// inline_asm (inlineAsmElementwise): PTX text has no meaning to the interpreter, so it refuses
// the kernel by name when compiling it, before any program runs.
import type { Rule } from './context.js';
import { unsupported } from './errors.js';

export const inlineAsmRule: Rule<'inline_asm'> = (op, c) => {
  throw unsupported(c.kernel, op, 'inlineAsmElementwise runs inline PTX, which only compiled devices (the sim, CUDA) execute; the interpreter cannot run this kernel');
};

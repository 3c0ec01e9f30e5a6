import { it } from 'vitest';
import { compile } from '../../src/compile/compile.js';
import { flashAttention } from '../../bench/kernels.js';
const D16 = { divisibleBy16: true };
it('dbg', () => {
  const r = compile(flashAttention.f16.trace({ BM: 64, BN: 64, D: 64 }), { target: 'sm_90a', numWarps: 4, numStages: 3, ptxas: true, specialization: [D16, D16, D16, D16, D16, {}] as never });
  require('fs').writeFileSync('/tmp/wg/flash90a.ptx', r.ptx);
});

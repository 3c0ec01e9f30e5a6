// Source locations are read from structured call sites when Node itself would format the stack
// (no Error.prepareStackTrace override, no source maps). Vitest installs its own override, so
// this test removes it to take that path, and checks it against the string-parsing path, forced
// with an override that formats frames the way Node's default does.
import { describe, expect, test } from 'vitest';
import { printFunc } from '../../src/ir/print.js';
import { BENCH_KERNELS } from '../../bench/kernels.js';

type Prepare = ((e: Error, sites: NodeJS.CallSite[]) => unknown) | undefined;

/** Runs `fn` with Error.prepareStackTrace set to `p` (or removed), restoring it after. */
function withPrepare<T>(p: Prepare, fn: () => T): T {
  const E = Error as { prepareStackTrace?: Prepare };
  const own = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  if (p) E.prepareStackTrace = p;
  else delete E.prepareStackTrace;
  try {
    return fn();
  } finally {
    if (own) Object.defineProperty(Error, 'prepareStackTrace', own);
    else delete E.prepareStackTrace;
  }
}

const nodeLikeFormat: Prepare = (e, sites) => `${String(e)}\n    at ${sites.map(String).join('\n    at ')}`;

describe('source locations from call sites', () => {
  test.each(BENCH_KERNELS.map((k) => [k.def.name, k] as const))('%s: same locs as parsing the formatted stack', (_, k) => {
    // Trace and print (which resolves every loc) inside each setting.
    const fast = withPrepare(undefined, () => printFunc(k.def.trace(k.constexprs), { locs: true }));
    const slow = withPrepare(nodeLikeFormat, () => printFunc(k.def.trace(k.constexprs), { locs: true }));
    expect(process.sourceMapsEnabled).toBe(false);
    const locs = fast.match(/loc\([^)]*\)/g) ?? [];
    expect(locs.length).toBeGreaterThan(5);
    expect(locs.every((l) => /kernels\.ts:\d+:\d+\)$/.test(l))).toBe(true);
    expect(fast).toBe(slow);
  });
});

describe('a stack already formatted', () => {
  test('falls back to parsing the text', async () => {
    const { lazyLoc } = await import('../../src/lang/loc.js');
    const loc = withPrepare(undefined, () => {
      const e = new Error('x');
      void e.stack; // formatted now, so the call sites can no longer be read
      return { ...lazyLoc(e) };
    });
    expect(loc.file).toMatch(/loc_fast_path\.test\.ts$/);
    expect(loc.line).toBeGreaterThan(0);
  });
});

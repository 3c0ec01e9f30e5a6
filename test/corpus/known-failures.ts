// Reads docs/testing.md's corpus table: | `kernel` | source | load/launch/result | reason |, where
// the first `backticked` text of the reason (if any) must occur in the sim's error message.
export interface KnownFailure {
  readonly stage: 'load' | 'launch' | 'result';
  readonly match: string | undefined;
}

export function knownFailures(markdown: string): Map<string, KnownFailure> {
  const start = markdown.indexOf('<!-- corpus-failures:start -->');
  const end = markdown.indexOf('<!-- corpus-failures:end -->');
  if (start < 0 || end < start) throw new Error('docs/testing.md has no corpus-failures table markers');
  const out = new Map<string, KnownFailure>();
  for (const line of markdown.slice(start, end).split('\n')) {
    const cells = line.split('|').map((s) => s.trim());
    if (cells.length < 6 || !/^`[\w.$-]+`$/.test(cells[1]!)) continue;
    const stage = cells[3];
    if (stage !== 'load' && stage !== 'launch' && stage !== 'result') {
      throw new Error(`docs/testing.md corpus table: '${stage}' is not load, launch or result (${line})`);
    }
    const m = /`([^`]+)`/.exec(cells[4]!);
    out.set(cells[1]!.slice(1, -1), { stage, match: m?.[1] });
  }
  return out;
}

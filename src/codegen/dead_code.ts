// Dead-code removal on the emitted PTX of one function. The lowering computes some values per
// element and uses only part of them (the address of a vector's first element, the per-element
// offsets of a 16-byte copy); ptxas deletes the rest, but the sim executes PTX as written, so the
// rest would count as work. Sound without control flow analysis: an instruction is dropped only
// when it is pure (no memory, no predicate guard, no carry flag, no `p|q` destination pair) and
// no line of the function reads any of its destinations, wherever that line sits.

const PURE = /^(add|sub|mul|mad|mov|selp|setp|and|or|xor|not|shl|shr|cvt|bfe|bfi|min|max|neg|abs)\b/;
const REG = /%[a-z]+\d+/g;
/** The destination registers of an instruction: one, or a `{a, b}` list (none for `p|q`). */
const DEST = /^\S+\s+(%[a-z]+\d+|\{[^}]*\})\s*,/;

/** A pure line's destinations and where its operands start; undefined for any other line. */
const pureDest = (text: string): { regs: string[]; end: number } | undefined => {
  const m = PURE.test(text) && !text.includes('.cc') ? DEST.exec(text) : null;
  return m ? { regs: m[1]!.match(REG) ?? [], end: m[0].length } : undefined;
};

/** Removes, in place, until none is left, the pure instructions of `lines` whose result nothing reads. */
export function dropDeadCode(lines: string[]): void {
  const dest = lines.map((l) => pureDest(l.trim()));
  // reads[r]: how many live lines read register r (a pure line's destination is not a read)
  const reads = new Map<string, number>();
  const readsOf = (i: number): string[] => {
    const t = lines[i]!.trim();
    return (dest[i] ? t.slice(dest[i]!.end) : t).match(REG) ?? [];
  };
  lines.forEach((_, i) => readsOf(i).forEach((r) => reads.set(r, (reads.get(r) ?? 0) + 1)));
  const writers = new Map<string, number[]>();
  dest.forEach((ds, i) => ds?.regs.forEach((d) => {
    const w = writers.get(d);
    if (w) w.push(i);
    else writers.set(d, [i]);
  }));
  // a pure line is dead when none of its destinations is read
  const unread = (i: number): boolean => dest[i]!.regs.every((d) => !reads.get(d));
  const dead = new Array<boolean>(lines.length).fill(false);
  const work = lines.map((_, i) => i).filter((i) => dest[i] && unread(i));
  while (work.length) {
    const i = work.pop()!;
    if (dead[i] || !unread(i)) continue;
    dead[i] = true;
    for (const r of readsOf(i)) {
      const n = reads.get(r)! - 1;
      reads.set(r, n);
      // every pure line that writes r may now be dead
      if (n === 0) work.push(...(writers.get(r) ?? []));
    }
  }
  let k = 0;
  lines.forEach((l, i) => { if (!dead[i]) lines[k++] = l; });
  lines.length = k;
}

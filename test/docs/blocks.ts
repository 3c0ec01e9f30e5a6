// The docs harness's reader: the fenced TypeScript blocks of README.md and docs/*.md, grouped into
// units (one module each), and the output blocks shown after them.
//
// How a block is marked (the fence's info string, after the language):
//   ```ts                a module of its own: type-checked (strict) and run on the sim
//   ```ts continues      continues the file's previous ts block: same module, same scope
//   ```ts no-run         type-checked only (needs a GPU, a file, a server...); a unit runs up to
//                        its first no-run block
//   ```ts signature      an API sketch with pseudo-syntax (`dir?`, `...`): neither checked nor run
//   ```text output       what the unit before it prints (console.log), compared exactly
// An HTML comment ending on the line right above a ts fence, `<!-- prelude: CODE -->` (one or more
// lines), is hidden code put before that block: the imports and `declare`s a fragment needs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Block {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly attrs: ReadonlySet<string>;
  readonly prelude: string;
  readonly code: string;
}

export interface Unit {
  readonly file: string;
  readonly line: number;
  readonly blocks: Block[];
  /** The text of a ```text output block right after the unit, if any. */
  output?: { line: number; text: string };
}

const TS_LANGS = new Set(['ts', 'typescript']);
const ATTRS = new Set(['continues', 'no-run', 'signature']);

/** The markdown files the harness reads: README.md and docs/*.md. */
export function docFiles(root: string): string[] {
  return ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

/** The units of one markdown text; throws on an unknown attribute or a misplaced marker. */
export function unitsOf(file: string, text: string): Unit[] {
  const lines = text.split('\n');
  const units: Unit[] = [];
  let last: Unit | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (end >= lines.length) throw new Error(`${file}:${i + 1}: unclosed fence`);
    const body = lines.slice(i + 1, end).join('\n') + '\n';
    const lang = open[1]!, words = open[2]!.split(/\s+/).filter(Boolean);
    if (TS_LANGS.has(lang)) {
      for (const w of words) if (!ATTRS.has(w)) throw new Error(`${file}:${i + 1}: unknown ts fence attribute '${w}' (known: ${[...ATTRS].join(', ')})`);
      // A prelude comment ends on the line above the fence (it may span lines).
      let from = i - 1;
      if (/-->\s*$/.test(lines[from] ?? '')) while (from > 0 && !/^<!--/.test(lines[from]!)) from--;
      const pre = /^<!--\s*prelude:([\s\S]*?)-->\s*$/.exec(lines.slice(Math.max(from, 0), i).join('\n'));
      const block: Block = { file, line: i + 1, attrs: new Set(words), prelude: pre ? pre[1]!.trim() + '\n' : '', code: body };
      if (block.attrs.has('signature')) {
        last = undefined;
      } else if (block.attrs.has('continues')) {
        if (!last) throw new Error(`${file}:${i + 1}: a 'ts continues' block with no ts block before it to continue`);
        // What a unit prints is what runs before its output block.
        if (last.output && !block.attrs.has('no-run')) throw new Error(`${file}:${i + 1}: a running 'ts continues' block after its unit's output block`);
        last.blocks.push(block);
      } else {
        last = { file, line: i + 1, blocks: [block] };
        units.push(last);
      }
    } else if (words.includes('output')) {
      if (!last) throw new Error(`${file}:${i + 1}: an output block with no ts block before it`);
      last.output = { line: i + 1, text: body };
    }
    i = end;
  }
  return units;
}

/**
 * The unit's module source, for type-checking (every block) or running (up to the first no-run
 * block), and for each of its lines where it comes from ('README.md:80', or '... prelude').
 */
export function moduleSource(u: Unit, forRun: boolean): { text: string; origin: string[] } {
  const out: string[] = [];
  const origin: string[] = [];
  for (const b of u.blocks) {
    if (forRun && b.attrs.has('no-run')) break;
    for (const l of b.prelude.split('\n').slice(0, -1)) (out.push(l), origin.push(`${b.file}:${b.line - 1} (prelude)`));
    b.code.split('\n').slice(0, -1).forEach((l, k) => (out.push(l), origin.push(`${b.file}:${b.line + 1 + k}`)));
  }
  out.push('export {};');
  origin.push(`${u.file}:${u.line}`);
  return { text: out.join('\n') + '\n', origin };
}

/** Whether the unit runs at all (its first block is not no-run). */
export const runs = (u: Unit): boolean => !u.blocks[0]!.attrs.has('no-run');

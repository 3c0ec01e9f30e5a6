// The stages of src/, bottom first. A file may import from its own stage or any stage below it,
// never above: data and dependencies flow one way (DESIGN.md, docs/ir.md "Stages").
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// `bench` is the repository's bench/ folder, which `tessera bench` (src/cli) loads lazily.
export const STAGES = [
  'ir', 'lang', 'descriptor', 'compiler', 'codegen', 'compile', 'interpret', 'runtime', 'primitive', 'ops', 'bench', 'cli', '(root)',
] as const;

export interface ImportEdge {
  readonly file: string; // relative to src/
  readonly line: number;
  readonly spec: string;
  readonly from: string; // stage of the importing file
  readonly to: string; // stage of the imported file
}

/** The stage of a path relative to src/: its first folder, or '(root)' for src/index.ts. */
export function stageOf(relPath: string): string {
  const parts = relPath.split(sep).join('/').split('/');
  return parts.length === 1 ? '(root)' : parts[0]!;
}

const IMPORT_RE = /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** Every relative import of one file's text, with its line number. */
export function importsOf(text: string): { spec: string; line: number }[] {
  const out: { spec: string; line: number }[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith('.')) continue;
    const at = m.index + m[0].search(/\S/);
    out.push({ spec, line: text.slice(0, at).split('\n').length });
  }
  return out;
}

export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** The import edges between stages of the tree at `srcDir` (relative imports only). */
export function stageEdges(srcDir: string, read: (f: string) => string = (f) => readFileSync(f, 'utf8')): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of tsFiles(srcDir)) {
    const rel = relative(srcDir, file);
    for (const { spec, line } of importsOf(read(file))) {
      const target = relative(srcDir, resolve(dirname(file), spec));
      const outside = target.startsWith('..') ? relative(join(srcDir, '..'), resolve(dirname(file), spec)) : undefined;
      if (outside !== undefined && !outside.startsWith(`bench${sep}`)) {
        throw new Error(`src/${rel}:${line}: '${spec}' imports from outside src/ and bench/`);
      }
      edges.push({ file: rel, line, spec, from: stageOf(rel), to: outside !== undefined ? 'bench' : stageOf(target) });
    }
  }
  return edges;
}

/** The edges that run back up: an import of a stage above the importer's (or of an unknown stage). */
export function upwardImports(edges: readonly ImportEdge[]): ImportEdge[] {
  const rank = (s: string) => (STAGES as readonly string[]).indexOf(s);
  return edges.filter((e) => rank(e.from) < 0 || rank(e.to) < 0 || rank(e.to) > rank(e.from));
}

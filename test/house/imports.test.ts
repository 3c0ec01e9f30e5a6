// Imports point down the stages (ir at the bottom, cli at the top): a new folder, or an import that
// runs back up, fails here with the file and line.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGES, importsOf, stageEdges, tsFiles, upwardImports } from './import_graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('the import graph of src/', () => {
  const edges = stageEdges(SRC);

  it('has no import that runs back up the stages', () => {
    const bad = upwardImports(edges).map((e) => `src/${e.file}:${e.line} (${e.from}) imports '${e.spec}' (${e.to})`);
    expect(bad).toEqual([]);
  });

  it('sees every stage, and the stages really depend on each other', () => {
    const seen = new Set(edges.map((e) => e.from));
    for (const s of STAGES) if (s !== 'bench') expect(seen.has(s), s).toBe(true);
    // Spot checks that the graph was read (a parser that found nothing would pass the test above).
    const has = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    expect(has('codegen', 'compiler')).toBe(true);
    expect(has('compile', 'codegen')).toBe(true);
    expect(has('runtime', 'interpret')).toBe(true);
    expect(has('cli', 'runtime')).toBe(true);
    expect(has('cli', 'bench')).toBe(true);
    expect(edges.length).toBeGreaterThan(300);
  });
});

describe('the subfolders of src/codegen', () => {
  // Grouped by concern as Triton's NVIDIA backend separates its tensor-core lowerings from the
  // generic ones. Listed bottom first: a subfolder imports the codegen root's shared files
  // (context, emitter, ptx_types, the generic lowerings) and subfolders before it, never one after
  // it, so the groups stay one-way. The root (render.ts, the generic lowerings) may use any of them.
  const CODEGEN_LAYERS = ['math', 'convert', 'smem', 'async', 'tensor_cores', 'pipeline'];
  const CODEGEN = join(SRC, 'codegen');
  const layerOf = (abs: string): string => {
    const parts = relative(CODEGEN, abs).split(sep);
    return parts.length === 1 ? '(root)' : parts[0]!;
  };

  it('has exactly the listed subfolders, each with files', () => {
    const dirs = [...new Set(tsFiles(CODEGEN).map(layerOf))].filter((d) => d !== '(root)').sort();
    expect(dirs).toEqual([...CODEGEN_LAYERS].sort());
  });

  it('imports only down the list, never sideways or up', () => {
    const bad: string[] = [];
    let crossings = 0;
    for (const f of tsFiles(CODEGEN)) {
      const from = layerOf(f);
      if (from === '(root)') continue;
      for (const { spec, line } of importsOf(readFileSync(f, 'utf8'))) {
        const target = resolve(dirname(f), spec);
        if (!target.startsWith(CODEGEN + sep)) continue;
        const to = layerOf(target);
        if (to === from || to === '(root)') continue;
        crossings++;
        if (CODEGEN_LAYERS.indexOf(to) > CODEGEN_LAYERS.indexOf(from)) bad.push(`codegen/${relative(CODEGEN, f)}:${line} (${from}) imports '${spec}' (${to})`);
      }
    }
    expect(bad).toEqual([]);
    expect(crossings).toBeGreaterThan(10); // the graph was read: pipeline uses tensor_cores, they use smem...
  });
});

describe('bench/', () => {
  // The published package ships dist/src and dist/bench, not the tests: a bench file that imports
  // from test/ breaks `tessera bench` for everyone who installed the package.
  it('imports only from src/ and bench/', () => {
    const BENCH = fileURLToPath(new URL('../../bench', import.meta.url));
    const bad: string[] = [];
    for (const f of tsFiles(BENCH)) {
      for (const { spec, line } of importsOf(readFileSync(f, 'utf8'))) {
        const target = resolve(dirname(f), spec);
        if (!target.startsWith(BENCH + sep) && !target.startsWith(SRC + sep)) bad.push(`${relative(BENCH, f)}:${line} imports '${spec}'`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the checker', () => {
  it('reads static, re-export, side-effect and dynamic imports with their lines', () => {
    const text = [
      "import { a } from '../ir/types.js';",
      "export { b } from './b.js';",
      "import type {",
      "  C,",
      "} from '../lang/c.js';",
      "import 'node:fs';",
      "const m = await import('../runtime/kernel.js');",
      "import './side.js';",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      { spec: '../ir/types.js', line: 1 },
      { spec: './b.js', line: 2 },
      { spec: '../lang/c.js', line: 3 },
      { spec: '../runtime/kernel.js', line: 7 },
      { spec: './side.js', line: 8 },
    ]);
  });

  it('flags an import that runs back up, and an unknown stage', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-imports-'));
    for (const d of ['ir', 'runtime', 'newstage']) mkdirSync(join(dir, d));
    writeFileSync(join(dir, 'ir', 'x.ts'), "import { k } from '../runtime/k.js';\n");
    writeFileSync(join(dir, 'runtime', 'k.ts'), "import { x } from '../ir/x.js';\nexport const k = 1;\n");
    writeFileSync(join(dir, 'newstage', 'n.ts'), "import { x } from '../ir/x.js';\n");
    const bad = upwardImports(stageEdges(dir)).map((e) => `${e.file}:${e.line}`).sort();
    expect(bad).toEqual([join('ir', 'x.ts') + ':1', join('newstage', 'n.ts') + ':1']);
  });
});

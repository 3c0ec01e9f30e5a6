// `tessera bench NAME ... [--device D] [-o DIR]`: runs benchmark definitions (bench/defs) and
// writes a table to stdout plus NAME.csv, NAME.json and NAME.svg per benchmark into DIR.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatCsv, formatTable, getDevice, renderSvg, runReport, type BenchDefinition, type DeviceKind } from '../runtime/index.js';
import { UsageError, type Parsed } from './args.js';

export interface BenchRequest {
  readonly names: readonly string[];
  readonly device?: DeviceKind;
  readonly outDir?: string;
  readonly sizes?: 'small' | 'full';
  readonly warmup?: number;
  readonly rep?: number;
}

function msFlag(p: Parsed, name: string): number | undefined {
  const v = p.flags.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError('bench', `--${name} needs a number of milliseconds >= 0, got '${v}'`);
  return n;
}

export function benchRequest(p: Parsed, names: readonly string[], cwd: string): BenchRequest {
  const device = p.flags.get('device');
  if (device !== undefined && !['cuda', 'sim', 'interpret'].includes(device)) throw new UsageError('bench', `--device must be cuda, sim or interpret, got '${device}'`);
  const sizes = p.flags.get('sizes');
  if (sizes !== undefined && sizes !== 'small' && sizes !== 'full') throw new UsageError('bench', `--sizes must be small or full, got '${sizes}'`);
  const out = p.flags.get('out');
  const warmup = msFlag(p, 'warmup');
  const rep = msFlag(p, 'rep');
  return {
    names, ...(device ? { device: device as DeviceKind } : {}), ...(out ? { outDir: resolve(cwd, out) } : {}),
    ...(sizes ? { sizes: sizes as 'small' | 'full' } : {}), ...(warmup !== undefined ? { warmup } : {}), ...(rep !== undefined ? { rep } : {}),
  };
}

/** Runs the named definitions; returns the files written. */
export async function runBenchReports(req: BenchRequest, defs: (sizes: 'small' | 'full') => readonly BenchDefinition[], out: (s: string) => void): Promise<string[]> {
  const device = getDevice(req.device);
  // Real GPU sizes only on a GPU; the simulators get sizes they finish in seconds.
  const sizes = req.sizes ?? (device.kind === 'cuda' ? 'full' : 'small');
  const all = defs(sizes);
  const files: string[] = [];
  if (req.outDir) mkdirSync(req.outDir, { recursive: true });
  for (const name of req.names) {
    const def = all.find((d) => d.name === name)!;
    const report = await runReport(def, device, {
      ...(req.warmup !== undefined ? { warmup: req.warmup } : device.kind === 'cuda' ? {} : { warmup: 1 }),
      ...(req.rep !== undefined ? { rep: req.rep } : device.kind === 'cuda' ? {} : { rep: 5 }),
      ...(device.kind === 'cuda' ? {} : { maxReps: 10 }),
    });
    out(formatTable(report) + '\n');
    if (req.outDir) {
      for (const [ext, text] of [['csv', formatCsv(report)], ['json', JSON.stringify(report, null, 2) + '\n'], ['svg', renderSvg(report)]] as const) {
        const f = join(req.outDir, `${def.name}.${ext}`);
        writeFileSync(f, text);
        files.push(f);
      }
    }
  }
  for (const f of files) out(`wrote ${f}\n`);
  return files;
}

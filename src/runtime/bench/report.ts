// Benchmark reports (Triton's perf_report without matplotlib): a definition gives x values and
// lines; each (line, x) is timed with bench() and shown as time, GB/s or TFLOP/s from the bytes or
// flops the definition gives. Output: a text table, CSV, JSON and an SVG plot (svg_plot.ts).
import type { SimCounters } from '../native/addon.js';
import { NativeRuntimeDevice } from '../native/runtime-device.js';
import type { Device } from '../device.js';
import { bench } from './do_bench.js';
import { timerFor } from './timer.js';

export type Measure = 'ms' | 'GB/s' | 'TFLOP/s';

/** One prepared (line, x) case: `run` launches once; bytes/flops turn time into a rate. */
export interface BenchCase {
  run(): Promise<void>;
  readonly bytes?: number;
  readonly flops?: number;
  /** Releases what the case allocated (called after it was measured). */
  dispose?(): void;
}

export interface BenchDefinition {
  readonly name: string;
  readonly description: string;
  readonly xName: string;
  readonly xValues: readonly number[];
  readonly lines: readonly string[];
  readonly measure: Measure;
  /** Builds the case of `line` at `x` on `device` (arrays allocated once, outside timing). */
  setup(line: string, x: number, device: Device): BenchCase;
}

export interface SeriesPoint {
  readonly x: number;
  readonly value: number;
  readonly ms: { readonly min: number; readonly p20: number; readonly p50: number; readonly p80: number; readonly mean: number };
  /** The sim's counters of one launch (sim only): simulator counts, not hardware counters. */
  readonly simCounters?: Pick<SimCounters, 'warpInstructions' | 'globalLoadSectors' | 'globalStoreSectors' | 'sharedBankConflicts'>;
}

export interface BenchReport {
  readonly name: string;
  readonly description: string;
  readonly device: string;
  readonly clock: string;
  readonly isGpuTime: boolean;
  readonly label: string;
  readonly measure: Measure;
  readonly xName: string;
  readonly series: readonly { readonly line: string; readonly points: readonly SeriesPoint[] }[];
}

export interface RunReportOptions {
  readonly warmup?: number;
  readonly rep?: number;
  readonly maxReps?: number;
}

function rate(measure: Measure, ms: number, c: BenchCase, def: string): number {
  if (measure === 'ms') return ms;
  const amount = measure === 'GB/s' ? c.bytes : c.flops;
  if (amount === undefined) throw new Error(`benchmark '${def}' measures ${measure} but a case gives no ${measure === 'GB/s' ? 'bytes' : 'flops'}`);
  return measure === 'GB/s' ? amount / (ms * 1e-3) / 1e9 : amount / (ms * 1e-3) / 1e12;
}

export async function runReport(def: BenchDefinition, device: Device, opts: RunReportOptions = {}): Promise<BenchReport> {
  const timer = timerFor(device);
  try {
    const series = [];
    for (const line of def.lines) {
      const points: SeriesPoint[] = [];
      for (const x of def.xValues) {
        const c = def.setup(line, x, device);
        let r;
        let simCounters: SeriesPoint['simCounters'];
        try {
          r = await bench(() => c.run(), { timer, warmup: opts.warmup ?? 25, rep: opts.rep ?? 100, maxReps: opts.maxReps ?? 1000 });
          if (device instanceof NativeRuntimeDevice && device.kind === 'sim') {
            await c.run(); // the counters are those of the last launch: one clean run of this case
            const s = device.native.simCounters();
            if (s) simCounters = { warpInstructions: s.warpInstructions, globalLoadSectors: s.globalLoadSectors, globalStoreSectors: s.globalStoreSectors, sharedBankConflicts: s.sharedBankConflicts };
          }
        } finally {
          c.dispose?.();
        }
        points.push({ x, value: rate(def.measure, r.p50, c, def.name), ms: { min: r.min, p20: r.p20, p50: r.p50, p80: r.p80, mean: r.mean }, ...(simCounters ? { simCounters } : {}) });
      }
      series.push({ line, points });
    }
    return { name: def.name, description: def.description, device: timer.device, clock: timer.clock, isGpuTime: timer.isGpuTime, label: timer.label, measure: def.measure, xName: def.xName, series };
  } finally {
    timer.close();
  }
}

const fmt = (v: number): string => (v === 0 ? '0' : Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(3) : v.toPrecision(3));

/** The unit a report's values are in, with the clock when it is not a GPU's. */
export const unitLabel = (r: BenchReport): string => `${r.measure}${r.isGpuTime ? '' : ` (${r.clock}, not a GPU time)`}`;

/** A text table: one row per x, one column per line (median), then the sim counters if any. */
export function formatTable(r: BenchReport): string {
  const head = [r.xName, ...r.series.map((s) => s.line)];
  const xs = r.series[0]?.points.map((p) => p.x) ?? [];
  const rows = xs.map((x, i) => [String(x), ...r.series.map((s) => fmt(s.points[i]!.value))]);
  const w = head.map((h, j) => Math.max(h.length, ...rows.map((row) => row[j]!.length)));
  const line = (cells: string[]): string => cells.map((c, j) => c.padStart(w[j]!)).join('  ');
  let out = `${r.name}: ${r.description}\n${unitLabel(r)}; device: ${r.device}\n${r.label}\n${line(head)}\n${rows.map(line).join('\n')}\n`;
  const counted = r.series.flatMap((s) => s.points.filter((p) => p.simCounters).map((p) => ({ line: s.line, p })));
  if (counted.length) {
    out += `sim counters per launch (simulator counts, not hardware counters):\n`;
    out += `  ${'line'.padEnd(16)} ${r.xName.padStart(8)} ${'warp instr'.padStart(12)} ${'ld sectors'.padStart(11)} ${'st sectors'.padStart(11)} ${'bank confl'.padStart(11)}\n`;
    for (const { line: l, p } of counted) {
      const c = p.simCounters!;
      out += `  ${l.padEnd(16)} ${String(p.x).padStart(8)} ${String(c.warpInstructions).padStart(12)} ${String(c.globalLoadSectors).padStart(11)} ${String(c.globalStoreSectors).padStart(11)} ${String(c.sharedBankConflicts).padStart(11)}\n`;
    }
  }
  return out;
}

/** CSV: line, x, value, unit, the quantiles in ms, the clock and the sim counters (blank off the sim). */
export function formatCsv(r: BenchReport): string {
  const rows = ['line,x,value,unit,min_ms,p20_ms,p50_ms,p80_ms,mean_ms,clock,gpu_time,sim_warp_instructions,sim_global_load_sectors,sim_global_store_sectors,sim_shared_bank_conflicts'];
  for (const s of r.series) {
    for (const p of s.points) {
      const c = p.simCounters;
      rows.push([JSON.stringify(s.line), p.x, p.value, r.measure, p.ms.min, p.ms.p20, p.ms.p50, p.ms.p80, p.ms.mean, r.clock, r.isGpuTime,
        c?.warpInstructions ?? '', c?.globalLoadSectors ?? '', c?.globalStoreSectors ?? '', c?.sharedBankConflicts ?? ''].join(','));
    }
  }
  return rows.join('\n') + '\n';
}

// `tessera bench softmax --device sim -o DIR`: the table, CSV, JSON and an SVG whose structure
// (axes, one series per line, point values) matches the JSON. Also: the attention benchmark kernel
// against a plain-JS reference on the sim (the definitions must time correct kernels).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { KernelDef } from '../../src/lang/index.js';
import { getDevice, Kernel, runReport, type BenchReport } from '../../src/runtime/index.js';
import { benchDefinitions } from '../../bench/defs/index.js';
import { roundTF32 } from '../../src/ir/numeric.js';
import { attention } from '../../bench/defs/attention.js';

process.env['TESSERA_CACHE'] = '0';

describe('tessera bench softmax --device sim -o DIR', () => {
  it('writes the table, CSV, JSON and an SVG plot that agrees with the JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
    let out = '';
    let err = '';
    const code = await main(['bench', 'softmax', '--device', 'sim', '-o', dir, '--warmup', '0', '--rep', '1'], { out: (s) => (out += s), err: (s) => (err += s), cwd: process.cwd(), env: process.env });
    expect(code, err).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'softmax.json'), 'utf8')) as BenchReport;
    expect(report).toMatchObject({ name: 'softmax', measure: 'GB/s', clock: 'sim-events', isGpuTime: false, xName: 'columns' });
    expect(report.label).toMatch(/not a GPU time/);
    expect(report.series.map((s) => s.line)).toEqual(['tessera nw=1', 'tessera nw=4']);
    for (const s of report.series) {
      expect(s.points.map((p) => p.x)).toEqual([64, 128, 256]);
      for (const p of s.points) {
        expect(p.value).toBeGreaterThan(0);
        expect(p.ms.min).toBeLessThanOrEqual(p.ms.p50);
        // GB/s from the definition's bytes (read + write of 4 rows) and the median time.
        expect(p.value).toBeCloseTo((2 * 4 * p.x * 4) / (p.ms.p50 * 1e-3) / 1e9, 9);
        expect(p.simCounters!.warpInstructions).toBeGreaterThan(0);
        // At least the 32-byte sectors of 4 rows of x f32 (more when warps hold replicated elements).
        expect(p.simCounters!.globalLoadSectors).toBeGreaterThanOrEqual((4 * p.x * 4) / 32);
      }
    }
    // Table on stdout, labelled.
    expect(out).toMatch(/softmax: row softmax/);
    expect(out).toMatch(/GB\/s \(sim-events, not a GPU time\)/);
    expect(out).toMatch(/sim counters per launch \(simulator counts, not hardware counters\)/);
    expect(out).toMatch(/^\s+256\s+\S+\s+\S+$/m);
    // CSV: a header and one row per (line, x) with the JSON's value.
    const csv = readFileSync(join(dir, 'softmax.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^line,x,value,unit,min_ms,p20_ms,p50_ms,p80_ms,mean_ms,clock,gpu_time/);
    expect(csv).toHaveLength(1 + 6);
    expect(Number(csv[1]!.split(',')[2])).toBe(report.series[0]!.points[0]!.value);
    // SVG: both axes with ticks and labels, one series group per line, points carrying the JSON's values.
    const svg = readFileSync(join(dir, 'softmax.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).not.toMatch(/<script|<image|href=/); // self-contained, static
    for (const axis of ['x', 'y']) {
      const g = new RegExp(`<g class="axis" data-axis="${axis}">([\\s\\S]*?)</g>`).exec(svg);
      expect(g, `${axis} axis`).not.toBeNull();
      expect(g![1]).toMatch(/class="tick"/);
      expect(g![1]).toMatch(/class="label"/);
    }
    expect(svg).toMatch(/class="label"[^>]*>columns/);
    expect(svg).toMatch(/GB\/s \(sim-events, not a GPU time\)/);
    const groups = [...svg.matchAll(/<g class="series" data-line="([^"]*)">([\s\S]*?)<\/g>/g)];
    expect(groups.map((g) => g[1])).toEqual(report.series.map((s) => s.line));
    for (const [i, g] of groups.entries()) {
      expect(g[2]!.match(/<polyline /g)).toHaveLength(1);
      const pts = [...g[2]!.matchAll(/data-x="([^"]+)" data-value="([^"]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
      expect(pts).toEqual(report.series[i]!.points.map((p) => [p.x, p.value]));
    }
  });

  it('names an unknown benchmark and a bad flag clearly', async () => {
    let err = '';
    const io = { out: () => {}, err: (s: string) => (err += s), cwd: process.cwd(), env: process.env };
    expect(await main(['bench', 'sofmax', '--device', 'sim'], io)).toBe(2);
    expect(err).toMatch(/unknown benchmark 'sofmax'.*softmax/);
    err = '';
    expect(await main(['bench', 'softmax', '--device', 'gpu'], io)).toBe(2);
    expect(err).toMatch(/--device must be cuda, sim or interpret, got 'gpu'/);
  });
});

describe('the attention benchmark kernel', () => {
  // f32 dots run as tf32 (the default, as in Triton): the reference rounds each dot's inputs the
  // same way (semantics.md), and the tolerance covers p, computed in f32 here and in the kernel,
  // rounding to tf32 on either side of a tie
  it('matches a plain-JS softmax(Q K^T * scale) V on the sim, with a partial last block', async () => {
    const L = 40;
    const D = 32;
    const r = (i: number) => Math.sin(i * 12.9898) * 0.5;
    const q = Float32Array.from({ length: L * D }, (_, i) => r(i));
    const k = Float32Array.from({ length: L * D }, (_, i) => r(i + 7777));
    const v = Float32Array.from({ length: L * D }, (_, i) => r(i + 3333));
    const o = new Float32Array(L * D);
    const scale = 1 / Math.sqrt(D);
    await new Kernel(attention as unknown as KernelDef).run({ q, k, v, o, L, scale, D, BM: 16, BN: 16 } as never, { grid: [Math.ceil(L / 16)], device: 'sim' });
    for (let i = 0; i < L; i++) {
      const s = Array.from({ length: L }, (_, j) => { let d = 0; for (let c = 0; c < D; c++) d += roundTF32(q[i * D + c]!) * roundTF32(k[j * D + c]!); return d * scale; });
      const m = Math.max(...s);
      const p = s.map((x) => Math.exp(x - m));
      const l = p.reduce((a, b) => a + b, 0);
      for (let c = 0; c < D; c++) {
        let want = 0;
        for (let j = 0; j < L; j++) want += roundTF32(Math.fround(p[j]!)) * roundTF32(v[j * D + c]!);
        expect(o[i * D + c]).toBeCloseTo(want / l, 4);
      }
    }
  });
});

// Every shipped definition runs end to end on the sim at its small sizes: argument names, grids and
// the bytes/flops they report are wired right (one sample per point: structure, not speed).
describe('every benchmark definition runs on the sim (small sizes)', () => {
  it.each(benchDefinitions('small').map((d) => [d.name, d] as const))('%s', async (_name, def) => {
    const report = await runReport(def, getDevice('sim'), { warmup: 0, rep: 0, maxReps: 1 });
    expect(report.series.map((s) => s.line)).toEqual(def.lines);
    for (const s of report.series) {
      expect(s.points.map((p) => p.x)).toEqual(def.xValues);
      for (const p of s.points) {
        expect(p.value).toBeGreaterThan(0);
        expect(Number.isFinite(p.value)).toBe(true);
        expect(p.simCounters!.warpInstructions).toBeGreaterThan(0);
        expect(p.simCounters!.globalStoreSectors).toBeGreaterThan(0);
      }
    }
  });
});

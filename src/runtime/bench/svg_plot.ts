// A self-contained SVG line plot of a BenchReport: axes with ticks, one polyline per line, a point
// per value carrying data-x / data-value (so tests and tools can read the plot back), a legend.
import { unitLabel, type BenchReport } from './report.js';

const W = 720;
const H = 440;
const M = { left: 80, right: 170, top: 40, bottom: 60 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v: number): string => (Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.01) ? v.toExponential(2) : String(+v.toPrecision(4)));

/** About `n` round tick values covering [lo, hi]. */
function ticks(lo: number, hi: number, n = 5): number[] {
  if (hi <= lo) hi = lo + 1;
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

export function renderSvg(r: BenchReport): string {
  const xs = [...new Set(r.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const vals = r.series.flatMap((s) => s.points.map((p) => p.value));
  // x on a log2 scale when the sizes grow geometrically (the usual benchmark sweep).
  const logX = xs.length > 2 && xs[0]! > 0 && xs.every((x, i) => i === 0 || x / xs[i - 1]! >= 1.5);
  const fx = (x: number): number => (logX ? Math.log2(x) : x);
  const [x0, x1] = [fx(xs[0] ?? 0), fx(xs[xs.length - 1] ?? 1)];
  const yt = ticks(0, Math.max(...vals, 0) * 1.05 || 1);
  const y1 = yt[yt.length - 1]!;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (x: number): number => M.left + (x1 === x0 ? pw / 2 : ((fx(x) - x0) / (x1 - x0)) * pw);
  const py = (v: number): number => M.top + ph - (v / y1) * ph;
  const f = (v: number): string => v.toFixed(2);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<title>${esc(`${r.name} — ${unitLabel(r)} — ${r.device}`)}</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${M.left}" y="22" font-size="15" font-weight="bold">${esc(`${r.name}: ${r.description}`)}</text>`);
  out.push(`<g class="axis" data-axis="x"><line x1="${M.left}" y1="${M.top + ph}" x2="${M.left + pw}" y2="${M.top + ph}" stroke="black"/>`);
  for (const x of xs) out.push(`<line x1="${f(px(x))}" y1="${M.top + ph}" x2="${f(px(x))}" y2="${M.top + ph + 5}" stroke="black"/><text class="tick" x="${f(px(x))}" y="${M.top + ph + 18}" text-anchor="middle">${num(x)}</text>`);
  out.push(`<text class="label" x="${M.left + pw / 2}" y="${H - 18}" text-anchor="middle">${esc(r.xName + (logX ? ' (log scale)' : ''))}</text></g>`);
  out.push(`<g class="axis" data-axis="y"><line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + ph}" stroke="black"/>`);
  for (const v of yt) out.push(`<line x1="${M.left - 5}" y1="${f(py(v))}" x2="${M.left + pw}" y2="${f(py(v))}" stroke="#ddd"/><text class="tick" x="${M.left - 8}" y="${f(py(v) + 4)}" text-anchor="end">${num(v)}</text>`);
  out.push(`<text class="label" transform="translate(18 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(unitLabel(r))}</text></g>`);
  r.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = s.points.map((p) => `${f(px(p.x))},${f(py(p.value))}`).join(' ');
    out.push(`<g class="series" data-line="${esc(s.line)}"><polyline fill="none" stroke="${color}" stroke-width="2" points="${pts}"/>`);
    for (const p of s.points) out.push(`<circle cx="${f(px(p.x))}" cy="${f(py(p.value))}" r="3" fill="${color}" data-x="${p.x}" data-value="${p.value}"/>`);
    const ly = M.top + 10 + i * 18;
    out.push(`<line x1="${W - M.right + 12}" y1="${ly}" x2="${W - M.right + 32}" y2="${ly}" stroke="${color}" stroke-width="2"/><text x="${W - M.right + 36}" y="${ly + 4}">${esc(s.line)}</text></g>`);
  });
  out.push(`<text x="${M.left}" y="${H - 4}" font-size="10" fill="#555">${esc(`${r.label}; device: ${r.device}`)}</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

// Benchmarking and autotuning: bench() (do_bench), autotune(), the per-device Timer seam.
export { bench, quantile } from './do_bench.js';
export type { BenchOptions, BenchResult } from './do_bench.js';
export { autotune, Autotuned } from './autotune.js';
export type { AutotuneOptions, AutotuneRunOptions, TuneConfig, Trial, Tuning, TunedArgs } from './autotune.js';
export { timerFor } from './timer.js';
export type { Timer, Clock } from './timer.js';
export { TuningStore } from './tuning_store.js';
export type { TuningRecord } from './tuning_store.js';
export { runReport, formatTable, formatCsv, unitLabel } from './report.js';
export type { BenchDefinition, BenchCase, BenchReport, Measure, SeriesPoint, RunReportOptions } from './report.js';
export { renderSvg } from './svg_plot.js';

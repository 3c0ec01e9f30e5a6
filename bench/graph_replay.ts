// Host time to queue a chain of 20 small kernels captured into a CUDA graph (one graph.launch)
// beside 3 and 20 separate kernel.run calls, on the sim. What is timed is the host side only
// (queueing: the driver runs the work on its own threads); several interleaved rounds, the best
// of each counts. Not a GPU figure: no GPU is used.
import { arange, constexpr, load, programId, ptr, store } from '../src/lang/index.js';
import { DeviceArray, getDevice, kernel, setDeviceAnnouncer, type DeviceName } from '../src/runtime/index.js';

const inc = kernel({ name: 'bench_graph_inc', params: { x: ptr('f32'), n: 'i32', BLOCK: constexpr() } }, (a) => {
  const offs = programId(0).mul(a.BLOCK).add(arange(0, a.BLOCK));
  const mask = offs.lt(a.n);
  store(a.x.add(offs), load(a.x.add(offs), { mask }).add(1), { mask });
});

export interface GraphFigures {
  /** Microseconds of host time per graph.launch of the 20-kernel chain. */
  readonly graphUs: number;
  /** Microseconds for 3 separate kernel.run calls. */
  readonly run3Us: number;
  /** Microseconds for the same 20 launches as separate kernel.run calls. */
  readonly run20Us: number;
  readonly device: string;
}

export async function graphReplay(device: DeviceName = 'sim', reps = 400, rounds = 5): Promise<GraphFigures> {
  setDeviceAnnouncer(() => {});
  const dev = getDevice(device);
  if (!dev.capture) throw new Error(`device '${device}' has no CUDA graphs`);
  const n = 128;
  const x = DeviceArray.zeros([n], 'f32', { device });
  const args = { x, n, BLOCK: 128 };
  const opts = { grid: 1, device, numWarps: 1 } as const;
  for (let i = 0; i < 50; i++) void inc.run(args, opts); // warm: compile, plan
  await dev.synchronize!();
  const g = await dev.capture(() => {
    for (let i = 0; i < 20; i++) void inc.run(args, opts);
  });
  const time = async (fn: () => PromiseLike<void>): Promise<number> => {
    let last: PromiseLike<void> = Promise.resolve();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) last = fn();
    const t1 = process.hrtime.bigint();
    await last;
    await dev.synchronize!();
    return Number(t1 - t0) / 1e3 / reps;
  };
  const best = { graph: Infinity, run3: Infinity, run20: Infinity };
  for (let r = 0; r < rounds; r++) {
    best.graph = Math.min(best.graph, await time(() => g.launch()));
    best.run3 = Math.min(best.run3, await time(() => {
      void inc.run(args, opts);
      void inc.run(args, opts);
      return inc.run(args, opts);
    }));
    best.run20 = Math.min(best.run20, await time(() => {
      for (let i = 0; i < 19; i++) void inc.run(args, opts);
      return inc.run(args, opts);
    }));
  }
  g.destroy();
  x.free();
  return { graphUs: best.graph, run3Us: best.run3, run20Us: best.run20, device: dev.name ?? dev.kind };
}

export async function benchGraph(out: (s: string) => void): Promise<void> {
  const f = await graphReplay();
  out(`device ${f.device} (sim: CPU figures, no GPU used); host time to queue, best of 5 rounds of 400\n`);
  out(`  graph.launch (20 captured kernels)  ${f.graphUs.toFixed(2).padStart(8)} us\n`);
  out(`  3 x kernel.run                      ${f.run3Us.toFixed(2).padStart(8)} us\n`);
  out(`  20 x kernel.run                     ${f.run20Us.toFixed(2).padStart(8)} us\n`);
  out(`  graph replay vs 3 runs: ${(f.graphUs / f.run3Us).toFixed(2)}x the host time (${f.graphUs < f.run3Us ? 'less' : 'MORE'})\n`);
}

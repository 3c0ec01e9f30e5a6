// pallasCall(body, options): runs a Pallas-style kernel over a grid, returning new output arrays
// (HostArrays for HostArray inputs; DeviceArrays on the inputs' device when any input is one).
// vmap(call) adds a trailing grid dimension for the batch and rewrites every BlockSpec to pick the
// batch element (a squeezed dim), as the Pallas design describes.
import type { Func } from '../ir/ops.js';
import { numel } from '../ir/types.js';
import { verify } from '../ir/verify.js';
import { KernelError } from '../lang/errors.js';
import { BlockSpec, resolveSpec, tracePallas, type BlockIndex, type Ref, type ShapeDtype } from '../lang/pallas.js';
import { Tile } from '../lang/tile.js';
import { arrayCtorFor } from '../ir/dtype_arrays.js';
import { HostArray } from './array.js';
import { DeviceError, getDevice, type Device, type DeviceKind, type DeviceName, type LaunchArg, type Stream } from './device.js';
import { DeviceArray } from './device_array.js';

export interface PallasCallOptions {
  /** One output (the call returns one array) or a list (the call returns a list). */
  readonly outShape: ShapeDtype | readonly ShapeDtype[];
  /** Programs per grid dim (1 to 3 dims). Default [1]. */
  readonly grid?: number | readonly number[];
  /** One spec per input; null/undefined/omitted = the whole array (identity). */
  readonly inSpecs?: readonly (BlockSpec | null | undefined)[];
  readonly outSpecs?: BlockSpec | null | readonly (BlockSpec | null | undefined)[];
  /**
   * { inputIndex: outputIndex }: the output starts as that input's contents (then the kernel
   * updates it). A DeviceArray input is updated in place and returned as the output (no copy);
   * a HostArray input is copied (the caller's array is not changed).
   */
  readonly inputOutputAliases?: Readonly<Record<number, number>>;
  readonly name?: string;
  readonly numWarps?: number;
  /** Software-pipelining depth on compiled devices (kernel.run's numStages). */
  readonly numStages?: number;
  readonly device?: DeviceName | Device;
  readonly onPrint?: (line: string) => void;
  /** With DeviceArray inputs: the stream to queue on. */
  readonly stream?: Stream;
}

export type PallasBody = (...refs: Ref[]) => void;

/** What one call needs once the input shapes are known; vmap derives it from the inner call's. */
interface Resolved {
  readonly grid: readonly number[];
  readonly outputs: readonly ShapeDtype[];
  readonly inSpecs: readonly BlockSpec[];
  readonly outSpecs: readonly BlockSpec[];
}

interface CallConfig {
  readonly name: string;
  readonly body: PallasBody;
  /** True when the call returns one array rather than a list. */
  readonly single: boolean;
  readonly aliases: ReadonlyMap<number, number>;
  readonly opts: PallasCallOptions;
  resolve(inputs: readonly ShapeDtype[]): Resolved;
}

export type PallasArray = HostArray | DeviceArray;

/**
 * A call. R is what it resolves with: one array for `outShape: { shape, dtype }`, a tuple for a
 * tuple of shapes (pallasCall's overloads infer it), else either.
 */
export interface PallasCall<R extends PallasArray | readonly PallasArray[] = PallasArray | PallasArray[]> {
  /** Resolves with the outputs when the kernel is done. */
  (...inputs: PallasArray[]): Promise<R>;
  /** The IR for inputs of these shapes and dtypes. */
  trace(...inputs: ShapeDtype[]): Func;
  /** @internal */
  readonly config: CallConfig;
}

const fail = (name: string, detail: string): never => {
  throw new KernelError('E_ARG', detail, { kernel: name, op: 'pallasCall' });
};

const asList = <T>(x: T | readonly T[]): readonly T[] => (Array.isArray(x) ? (x as readonly T[]) : [x as T]);

/** One array per output shape, keeping a tuple's length. */
export type PallasOutputs<O extends readonly ShapeDtype[]> = { -readonly [K in keyof O]: PallasArray };

export function pallasCall<const O extends readonly ShapeDtype[]>(body: PallasBody, opts: PallasCallOptions & { readonly outShape: O }): PallasCall<PallasOutputs<O>>;
export function pallasCall(body: PallasBody, opts: PallasCallOptions & { readonly outShape: ShapeDtype }): PallasCall<PallasArray>;
export function pallasCall(body: PallasBody, opts: PallasCallOptions): PallasCall;
export function pallasCall(body: PallasBody, opts: PallasCallOptions): PallasCall {
  const rawName = opts?.name ?? (typeof body === 'function' && body.name ? body.name : 'pallas_kernel');
  const name = rawName.replace(/[^A-Za-z0-9_]/g, '_').replace(/^([0-9])/, '_$1');
  if (typeof body !== 'function') fail(name, 'pallasCall needs a kernel body function');
  if (typeof opts !== 'object' || opts === null) fail(name, 'pallasCall needs options { outShape, grid?, inSpecs?, outSpecs? }');
  if (opts.outShape === undefined) fail(name, 'missing option `outShape`');
  const outputs = asList(opts.outShape);
  const grid = opts.grid === undefined ? [1] : asList(opts.grid);
  if (grid.length < 1 || grid.length > 3 || grid.some((g) => !Number.isInteger(g) || g < 1)) {
    fail(name, `grid must have 1 to 3 positive integer dims, got ${JSON.stringify(opts.grid)}`);
  }
  const outSpecList = opts.outSpecs === undefined ? [] : asList(opts.outSpecs as BlockSpec | null | readonly (BlockSpec | null)[]);
  if (outSpecList.length > outputs.length) fail(name, `${outSpecList.length} outSpecs for ${outputs.length} outputs`);
  const given = opts.inSpecs ?? [];
  const aliases = new Map<number, number>();
  for (const [k, v] of Object.entries(opts.inputOutputAliases ?? {})) {
    const i = Number(k);
    if (!Number.isInteger(i) || i < 0 || !Number.isInteger(v) || v < 0 || v >= outputs.length) {
      fail(name, `inputOutputAliases entry ${k}: ${String(v)} must map an input index to an output index (< ${outputs.length})`);
    }
    aliases.set(i, v);
  }
  return makeCall({
    name, body, aliases, opts,
    single: !Array.isArray(opts.outShape),
    resolve: (inputs) => {
      if (given.length > inputs.length) fail(name, `${given.length} inSpecs for ${inputs.length} inputs`);
      return {
        grid,
        outputs,
        inSpecs: inputs.map((a, i) => resolveSpec(given[i], a, `inSpecs[${i}]`)),
        outSpecs: outputs.map((a, i) => resolveSpec(outSpecList[i], a, `outSpecs[${i}]`)),
      };
    },
  });
}

function makeCall(cfg: CallConfig): PallasCall {
  const traces = new Map<string, Func>();
  const trace = (...inputs: ShapeDtype[]): Func => {
    const key = JSON.stringify(inputs.map((a) => [a.dtype, a.shape]));
    let f = traces.get(key);
    if (!f) {
      const r = cfg.resolve(inputs);
      f = tracePallas(cfg.body, { name: cfg.name, grid: r.grid, inputs, outputs: r.outputs, inSpecs: r.inSpecs, outSpecs: r.outSpecs });
      verify(f);
      traces.set(key, f);
    }
    return f;
  };
  const call = async (...inputs: PallasArray[]): Promise<PallasArray | PallasArray[]> => {
    let onDevice: Device | undefined;
    inputs.forEach((a, i) => {
      if (a instanceof DeviceArray) {
        if (onDevice && a.device !== onDevice) fail(cfg.name, `input ${i} is on device '${a.device.name ?? a.device.kind}', input 0's device is '${onDevice.name ?? onDevice.kind}'`);
        a.check(`pallasCall '${cfg.name}', input ${i}`);
        onDevice ??= a.device;
      } else if (!(a instanceof HostArray)) {
        fail(cfg.name, `input ${i} must be a HostArray (tessera.array(data, dtype, shape)) or a DeviceArray, got ${String(a)}`);
      }
    });
    const shapes = inputs.map((a) => ({ shape: a.shape, dtype: a.dtype }));
    const { grid, outputs } = cfg.resolve(shapes);
    for (const [i, o] of cfg.aliases) {
      const inp = inputs[i];
      if (!inp) fail(cfg.name, `inputOutputAliases names input ${i}, but only ${inputs.length} inputs were given`);
      const out = outputs[o]!;
      if (inp!.dtype !== out.dtype || inp!.shape.join() !== out.shape.join()) {
        fail(cfg.name, `input ${i} (${inp!.dtype}[${inp!.shape.join(', ')}]) cannot alias output ${o} (${out.dtype}[${out.shape.join(', ')}])`);
      }
      if (inp instanceof DeviceArray && !inp.contiguous) fail(cfg.name, `input ${i} aliases output ${o} and must be contiguous`);
    }
    const func = trace(...shapes);
    const device = onDevice ?? getDevice(cfg.opts.device);
    if (onDevice && cfg.opts.device !== undefined && getDevice(cfg.opts.device) !== onDevice) {
      throw new DeviceError('E_DEVICE', `pallasCall '${cfg.name}': the inputs are on device '${onDevice.kind}', the device option names '${String(typeof cfg.opts.device === 'string' ? cfg.opts.device : cfg.opts.device.kind)}'`);
    }
    const aliasOf = (j: number) => [...cfg.aliases].find(([, out]) => out === j)?.[0];
    let outs: PallasArray[];
    let args: LaunchArg[];
    if (onDevice) {
      // Outputs on the device; an aliased one is its input itself (updated in place).
      outs = outputs.map((o, j) => {
        const src = aliasOf(j);
        if (src !== undefined && inputs[src] instanceof DeviceArray) return inputs[src];
        const d = DeviceArray.empty(o.shape, o.dtype, { device });
        if (src !== undefined) void d.copyFrom((inputs[src] as HostArray).data, cfg.opts.stream ? { stream: cfg.opts.stream } : {});
        return d;
      });
      args = [...inputs.map((a) => (a instanceof DeviceArray ? a : a.data)), ...outs.map((o) => o as DeviceArray)];
    } else {
      outs = outputs.map((o, j) => {
        const src = aliasOf(j);
        const data = src !== undefined ? (inputs[src] as HostArray).data.slice() : new (arrayCtorFor(o.dtype))(numel(o.shape));
        return new HostArray(o.dtype, [...o.shape], data as HostArray['data']);
      });
      // Inputs are read through copies so that nothing the caller owns can change.
      args = [...inputs.map((a) => (a as HostArray).data.slice()), ...outs.map((o) => (o as HostArray).data)];
    }
    try {
      await device.launch(func, args, {
        grid: [grid[0]!, grid[1] ?? 1, grid[2] ?? 1],
        numWarps: cfg.opts.numWarps ?? 4,
        ...(cfg.opts.numStages !== undefined ? { numStages: cfg.opts.numStages } : {}),
        ...(cfg.opts.onPrint ? { onPrint: cfg.opts.onPrint } : {}),
        ...(cfg.opts.stream ? { stream: cfg.opts.stream } : {}),
      });
    } catch (e) {
      // The outputs made for this call go with it (a donated input stays the caller's).
      for (const o of outs) if (o instanceof DeviceArray && !inputs.includes(o)) o.free();
      throw e;
    }
    return cfg.single ? outs[0]! : outs;
  };
  return Object.assign(call, { trace, config: cfg });
}

const insertAt = <T>(xs: readonly T[], at: number, v: T): T[] => [...xs.slice(0, at), v, ...xs.slice(at)];

/**
 * Batches a pallasCall: inputs get a batch dim at `inAxes[i]` (default 0; null = not batched),
 * outputs get it at dim 0. The batch becomes one more (trailing) grid dim, so the body's
 * programId axes keep their meaning; every BlockSpec gets a squeezed batch dim indexed by it.
 * vmap of a vmapped call nests (up to 3 grid dims in all).
 */
export function vmap<R extends PallasArray | readonly PallasArray[]>(f: PallasCall<R>, opts: { inAxes?: number | null | readonly (number | null)[] } = {}): PallasCall<R> {
  const inner = f?.config;
  if (!inner) throw new KernelError('E_ARG', 'vmap needs a function made by pallasCall (or vmap)', { op: 'vmap' });
  const name = inner.name;
  const axisOf = (i: number): number | null => {
    const a = opts.inAxes;
    if (a === undefined) return 0;
    if (a === null || typeof a === 'number') return a;
    return a[i] === undefined ? 0 : a[i]!;
  };
  const resolve = (inputs: readonly ShapeDtype[]): Resolved => {
    let size: number | undefined;
    inputs.forEach((a, i) => {
      const ax = axisOf(i);
      if (ax === null) return;
      if (!Number.isInteger(ax) || ax < 0 || ax >= a.shape.length) fail(name, `vmap inAxes[${i}] = ${ax} is out of range for a ${a.shape.length}-d input`);
      const n = a.shape[ax]!;
      if (size !== undefined && n !== size) fail(name, `vmap batch sizes differ: input ${i} has ${n} along axis ${ax}, expected ${size}`);
      size = n;
    });
    if (size === undefined) fail(name, 'vmap needs at least one batched input');
    const r = inner.resolve(inputs.map((a, i) => {
      const ax = axisOf(i);
      return ax === null ? a : { dtype: a.dtype, shape: a.shape.filter((_, d) => d !== ax) };
    }));
    if (r.grid.length >= 3) fail(name, `vmap adds a grid dim, but the grid already has 3 dims [${r.grid.join(', ')}]`);
    const b = r.grid.length; // position of the batch index among the index-map arguments
    const rewrite = (spec: BlockSpec, axis: number | null): BlockSpec =>
      axis === null
        ? new BlockSpec(spec.blockShape, (...g: Tile[]) => spec.indexMap(...g.slice(0, b)))
        : new BlockSpec(insertAt(spec.blockShape, axis, null), (...g: Tile[]) => {
          const idx = spec.indexMap(...g.slice(0, b));
          return insertAt<BlockIndex>(Array.isArray(idx) ? idx : [idx as BlockIndex], axis, g[b]!);
        });
    return {
      grid: [...r.grid, size!],
      outputs: r.outputs.map((o) => ({ dtype: o.dtype, shape: [size!, ...o.shape] })),
      inSpecs: r.inSpecs.map((s, i) => rewrite(s, axisOf(i))),
      outSpecs: r.outSpecs.map((s) => rewrite(s, 0)),
    };
  };
  return makeCall({ ...inner, resolve }) as PallasCall<R>;
}


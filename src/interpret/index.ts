// The interpreter: runs tile IR on the CPU, program by program (x fastest), on a HostMemory.
// It is the reference semantics every backend must reproduce (docs/semantics.md).
import type { Func, Param } from '../ir/ops.js';
import { isFloat, isInt, isPtr, type DType } from '../ir/types.js';
import { newArray, type Lanes } from './arrays.js';
import { compileFunc } from './compile.js';
import type { RunCtx } from './context.js';
import { InterpretError } from './errors.js';
import type { ElemArray } from '../ir/dtype_arrays.js';
import type { HostMemory } from './memory.js';
import { laneOf } from './rules-elementwise.js';
import { ProgramExit } from './rules-exit.js';

export { HostMemory } from './memory.js';
export { InterpretError } from './errors.js';

export interface InterpretOptions {
  /** Grid size, 1 to 3 dims (x, y, z). */
  grid: number[];
  /** Receives each `print` line (prefixed with the program id). Default: console.log. */
  onPrint?: (line: string) => void;
  /** Thread block cluster dims (x, y, z): clusterCtaRank() numbers programs by it. Default [1, 1, 1]. */
  cluster?: readonly [number, number, number];
}

export type ScalarArg = number | bigint | boolean;

function argError(func: Func, detail: string): InterpretError {
  return new InterpretError('E_ARG', detail, { kernel: func.name });
}

/** The one-lane array holding a scalar argument, after checking it fits the parameter type. */
function argLanes(func: Func, p: Param, v: ScalarArg): ElemArray {
  const bad = (want: string) => argError(func, `parameter '${p.name}' (${p.type}) expects ${want}, got ${typeof v} ${String(v)}`);
  if (isPtr(p.type)) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad('a device address (a non-negative integer)');
    return Float64Array.of(v);
  }
  const t = p.type as DType;
  const out: Lanes = newArray(t, 1);
  if (t === 'bool') {
    if (typeof v !== 'boolean' && v !== 0 && v !== 1) throw bad('a boolean');
    out[0] = v ? 1 : 0;
  } else if (t === 'i64') {
    if (typeof v === 'bigint') out[0] = v;
    else if (typeof v === 'number' && Number.isSafeInteger(v)) out[0] = BigInt(v);
    else throw bad('a bigint or a safe integer');
    if (BigInt.asIntN(64, out[0] as bigint) !== (typeof v === 'bigint' ? v : BigInt(v))) throw bad('a value in the i64 range');
  } else if (isInt(t)) {
    if (typeof v !== 'number' || !Number.isInteger(v)) throw bad('an integer');
    out[0] = v;
    if (out[0] !== v) throw bad(`a value in the ${t} range`);
  } else if (isFloat(t)) {
    if (typeof v !== 'number') throw bad('a number');
    out[0] = laneOf(t, v);
  }
  return out as ElemArray;
}

/** Runs `func` over the grid. Pointer args are HostMemory addresses. */
export function interpret(func: Func, args: ScalarArg[], mem: HostMemory, opts: InterpretOptions): void {
  for (const _ of interpretPrograms(func, args, mem, opts)) {
    // each step is one program; run them all now
  }
}

/**
 * The same run, one program per step: a caller may pause between programs (the runtime's
 * interpret device does, so that a long kernel never blocks the event loop). The arguments are
 * checked on the first step, before any program runs.
 */
export function* interpretPrograms(func: Func, args: ScalarArg[], mem: HostMemory, opts: InterpretOptions): Generator<void, void, void> {
  const g = opts.grid;
  if (!Array.isArray(g) || g.length < 1 || g.length > 3 || g.some((d) => !Number.isInteger(d) || d < 1)) {
    throw argError(func, `grid must be 1 to 3 positive integers, got ${JSON.stringify(g)}`);
  }
  if (args.length !== func.params.length) {
    throw argError(func, `expects ${func.params.length} arguments (${func.params.map((p) => p.name).join(', ')}), got ${args.length}`);
  }
  const lanes = func.params.map((p, i) => argLanes(func, p, args[i]!));
  const compiled = compileFunc(func);
  const grid: [number, number, number] = [g[0]!, g[1] ?? 1, g[2] ?? 1];
  const cx: RunCtx = {
    env: new Array<ElemArray>(compiled.slots),
    pid: [0, 0, 0],
    grid,
    cluster: opts.cluster ? [...opts.cluster] : [1, 1, 1],
    mem,
    print: opts.onPrint ?? ((line) => console.log(line)),
  };
  for (let z = 0; z < grid[2]; z++) {
    for (let y = 0; y < grid[1]; y++) {
      for (let x = 0; x < grid[0]; x++) {
        cx.pid = [x, y, z];
        try {
          compiled.body.run(cx, lanes);
        } catch (e) {
          if (!(e instanceof ProgramExit)) throw e; // exit_if: this program is done
        }
        yield;
      }
    }
  }
}

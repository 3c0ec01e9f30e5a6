// `tessera compile FILE --kernel NAME ...`: ahead-of-time compilation without a GPU. Imports FILE,
// finds the kernel, checks --arg against its parameters, traces with the --constexpr values,
// compiles (src/compiler) and only then writes the requested files (nothing is half-written).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile, MAX_NUM_STAGES, TARGETS, type CompileResult, type Target } from '../compile/compile.js';
import type { ParamSpec } from '../compiler/axis_info.js';
import { printFunc } from '../ir/print.js';
import type { ConstexprValue, KernelDef } from '../lang/kernel.js';
import { UsageError, type Parsed } from './args.js';

export const EMIT_KINDS = ['ptx', 'cubin', 'ir'] as const;
export type EmitKind = (typeof EMIT_KINDS)[number];

export interface CompileRequest {
  readonly file: string;
  readonly kernel?: string;
  readonly args: ReadonlyMap<string, { type: string; divisibleBy16: boolean; equalsOne: boolean }>;
  readonly constexprs: Readonly<Record<string, ConstexprValue>>;
  readonly target: Target;
  readonly numWarps: number;
  /** Undefined: the target's default. */
  readonly numStages?: number;
  readonly emit: readonly EmitKind[];
  readonly outDir: string;
}

const CMD = 'compile';

/** `--arg x=ptr:f32`, `--arg n=i32`, with an optional `:16` (divisible by 16) or `:1` (equals 1). */
function parseArg(text: string): [string, { type: string; divisibleBy16: boolean; equalsOne: boolean }] {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(ptr:)?([a-z0-9]+)(?::(16|1))?$/.exec(text);
  if (!m) throw new UsageError(CMD, `flag '--arg' expects NAME=TYPE (e.g. x=ptr:f32, n=i32, n=i32:16), got '${text}'`);
  const type = m[2] ? `ptr<${m[3]}>` : m[3]!;
  return [m[1]!, { type, divisibleBy16: m[4] === '16', equalsOne: m[4] === '1' }];
}

function parseConstexpr(text: string): [string, ConstexprValue] {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(text);
  if (!m) throw new UsageError(CMD, `flag '--constexpr' expects NAME=VALUE (e.g. BLOCK=1024), got '${text}'`);
  const raw = m[2]!;
  let v: ConstexprValue = raw;
  if (raw === 'true' || raw === 'false') v = raw === 'true';
  else if (raw !== '' && Number.isFinite(Number(raw))) v = Number(raw);
  return [m[1]!, v];
}

export function compileRequest(p: Parsed, cwd: string): CompileRequest {
  if (p.positional.length !== 1) throw new UsageError(CMD, `expected exactly one FILE, got ${p.positional.length ? p.positional.map((s) => `'${s}'`).join(' ') : 'none'}`);
  const target = (p.flags.get('arch') ?? 'sm_80') as Target;
  if (!TARGETS.includes(target)) throw new UsageError(CMD, `flag '--arch' must be one of ${TARGETS.join(', ')}, got '${target}'`);
  const warpsText = p.flags.get('num-warps') ?? '4';
  const numWarps = Number(warpsText);
  if (!/^\d+$/.test(warpsText) || numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)) !== 0) {
    throw new UsageError(CMD, `flag '--num-warps' must be a power of two in 1..32, got '${warpsText}'`);
  }
  const stagesText = p.flags.get('num-stages');
  const numStages = stagesText === undefined ? undefined : Number(stagesText);
  if (stagesText !== undefined && (!/^\d+$/.test(stagesText) || numStages! < 1 || numStages! > MAX_NUM_STAGES)) {
    throw new UsageError(CMD, `flag '--num-stages' must be an integer in 1..${MAX_NUM_STAGES}, got '${stagesText}'`);
  }
  const emit = (p.flags.get('emit') ?? 'ptx').split(',').map((s) => s.trim());
  for (const e of emit) if (!(EMIT_KINDS as readonly string[]).includes(e)) throw new UsageError(CMD, `flag '--emit' takes a list of ${EMIT_KINDS.join(', ')}, got '${e}'`);
  const args = new Map<string, { type: string; divisibleBy16: boolean; equalsOne: boolean }>();
  for (const a of p.lists.get('arg') ?? []) {
    const [k, v] = parseArg(a);
    if (args.has(k)) throw new UsageError(CMD, `flag '--arg' names '${k}' twice`);
    args.set(k, v);
  }
  const constexprs: Record<string, ConstexprValue> = {};
  for (const c of p.lists.get('constexpr') ?? []) {
    const [k, v] = parseConstexpr(c);
    if (k in constexprs) throw new UsageError(CMD, `flag '--constexpr' names '${k}' twice`);
    constexprs[k] = v;
  }
  const out = p.flags.get('out') ?? '.';
  const kernel = p.flags.get('kernel');
  return {
    file: isAbsolute(p.positional[0]!) ? p.positional[0]! : resolve(cwd, p.positional[0]!),
    ...(kernel !== undefined ? { kernel } : {}),
    args, constexprs, target, numWarps, ...(numStages !== undefined ? { numStages } : {}),
    emit: [...new Set(emit)] as EmitKind[],
    outDir: isAbsolute(out) ? out : resolve(cwd, out),
  };
}

/** A kernel made with defineKernel, or a runtime wrapper that carries one as `.def`. */
function asKernelDef(v: unknown): KernelDef | undefined {
  const isDef = (x: unknown): x is KernelDef =>
    typeof x === 'object' && x !== null && typeof (x as KernelDef).trace === 'function' && typeof (x as KernelDef).name === 'string' && Array.isArray((x as KernelDef).runtimeParams);
  if (isDef(v)) return v;
  const inner = (v as { def?: unknown } | null)?.def;
  return (typeof v === 'object' || typeof v === 'function') && isDef(inner) ? inner : undefined;
}

/** Thrown for problems with FILE or the kernel (exit code 1, unlike usage errors). */
export class CliInputError extends Error {
  readonly code = 'E_CLI_INPUT';
}

/** What to do when this Node cannot import a TypeScript FILE. */
function typeScriptHowTo(file: string): string {
  return `cannot import ${file}: Node ${process.versions.node} does not run TypeScript files (Node 22.18 and later do). ` +
    'Compile it to JavaScript first (e.g. `npx tsc`, then `tessera compile` the .js file), or run the CLI under a TypeScript loader: ' +
    '`npx tsx node_modules/tessera/dist/src/cli/main.js compile FILE.ts ...`';
}

export async function findKernel(file: string, name: string | undefined): Promise<KernelDef> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?ts$/.test(file)) throw new CliInputError(typeScriptHowTo(file));
    throw new CliInputError(`cannot import ${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const found = new Map<string, KernelDef>();
  for (const [exportName, v] of Object.entries(mod)) {
    const def = asKernelDef(v);
    if (def) found.set(exportName, def);
  }
  const names = [...found.values()].map((d) => d.name);
  if (found.size === 0) throw new CliInputError(`${file} exports no kernel (make them with defineKernel(...) or kernel(...) and export them)`);
  if (name === undefined) {
    if (found.size === 1) return [...found.values()][0]!;
    throw new CliInputError(`${file} exports several kernels (${names.join(', ')}); pick one with --kernel`);
  }
  const def = [...found.values()].find((d) => d.name === name) ?? found.get(name);
  if (!def) throw new CliInputError(`${file} has no kernel '${name}' (it exports: ${names.join(', ')})`);
  return def;
}

/** Checks --arg against the kernel's runtime parameters; returns the specialization they carry. */
function checkArgs(def: KernelDef, args: CompileRequest['args']): Record<string, ParamSpec> {
  const spec: Record<string, ParamSpec> = {};
  for (const [name, a] of args) {
    const p = def.runtimeParams.find((r) => r.name === name);
    if (!p) {
      const why = def.constexprNames.includes(name) ? `is a constexpr; pass it with --constexpr ${name}=VALUE` : `is not a parameter (runtime parameters: ${def.runtimeParams.map((r) => r.name).join(', ')})`;
      throw new CliInputError(`kernel '${def.name}': --arg '${name}' ${why}`);
    }
    if (p.type !== a.type) throw new CliInputError(`kernel '${def.name}': --arg '${name}' says ${a.type} but the parameter is ${p.type}`);
    if (a.divisibleBy16 || a.equalsOne) spec[name] = { ...(a.divisibleBy16 ? { divisibleBy16: true } : {}), ...(a.equalsOne ? { equalsOne: true } : {}) };
  }
  return spec;
}

export interface CompileOutcome {
  readonly files: string[];
  readonly result: CompileResult;
}

export async function runCompile(req: CompileRequest): Promise<CompileOutcome> {
  const def = await findKernel(req.file, req.kernel);
  const specialization = checkArgs(def, req.args);
  const missing = def.constexprNames.filter((n) => !(n in req.constexprs));
  if (missing.length) {
    throw new CliInputError(`kernel '${def.name}' needs a value for constexpr ${missing.map((n) => `'${n}'`).join(', ')}: pass ${missing.map((n) => `--constexpr ${n}=VALUE`).join(' ')} (e.g. --constexpr ${missing[0]}=1024)`);
  }
  const func = def.trace(req.constexprs, { specialization });
  const result = compile(func, {
    target: req.target,
    numWarps: req.numWarps,
    ...(req.numStages !== undefined ? { numStages: req.numStages } : {}),
    specialization,
    ...(req.emit.includes('cubin') ? { ptxas: true } : {}),
  });
  // Everything is computed; now write, each file through a temporary name.
  const base = `${def.name}.${req.target}`;
  const outputs: [string, string | Uint8Array][] = [];
  if (req.emit.includes('ir')) outputs.push([`${base}.ir`, printFunc(func, { locs: true })]);
  if (req.emit.includes('ptx')) outputs.push([`${base}.ptx`, result.ptx]);
  if (req.emit.includes('cubin') && result.cubin) outputs.push([`${base}.cubin`, result.cubin]);
  const meta = { ...result.metadata, constexprs: func.constexprs, ptxasLog: undefined };
  outputs.push([`${base}.json`, JSON.stringify(meta, null, 2) + '\n']);
  mkdirSync(req.outDir, { recursive: true });
  const files: string[] = [];
  for (const [name, data] of outputs) {
    const path = join(req.outDir, name);
    writeFileSync(`${path}.tmp`, data);
    renameSync(`${path}.tmp`, path);
    files.push(path);
  }
  return { files, result };
}

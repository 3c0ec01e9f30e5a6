#!/usr/bin/env node
// The `tessera` command: info | compile | cache | bench. `main(argv, io)` is the whole CLI (tests
// call it directly); running this file as a program calls it with process.argv and exits with its code.
// Exit codes: 0 ok, 1 the command failed (bad FILE/kernel, compile error), 2 usage error.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TesseraError } from '../ir/errors.js';
import { parseFlags, UsageError, type FlagSpec } from './args.js';
import { runCache } from './cache.js';
import { CliInputError, compileRequest, runCompile } from './compile.js';
import { collectInfo, formatInfo } from './info.js';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

const USAGE: Record<string, string> = {
  info: 'tessera info [--json]\n  every device by ordinal (cuda:N, sim:N, interpret:0) and the default one, sim driver, ptxas, nvcc',
  compile:
    'tessera compile FILE [--kernel NAME] [--arg NAME=TYPE ...] [--constexpr NAME=VALUE ...]\n' +
    '                [--arch sm_80|sm_89|sm_90|sm_90a|sm_100|sm_100a] [--num-warps N] [--num-stages N] [--emit ptx,cubin,ir] [-o DIR]\n' +
    '  FILE: a .js/.mjs module exporting kernels; TYPE: ptr:f32, i32, ... (append :16 for\n' +
    '  "divisible by 16", :1 for "equals 1"); writes NAME.ARCH.{ptx,cubin,ir,json} into DIR',
  cache: 'tessera cache dir | list [--json] | stats [--json] | clear\n  the persistent compile cache ($TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera or ~/.cache/tessera)',
  bench: 'tessera bench [NAME ...] [--device cuda|sim|interpret] [-o DIR] [--sizes small|full] [--warmup MS] [--rep MS]\n  runs the benchmarks (bench/all; names pick some, e.g. compile) or benchmark definitions\n  (vector-add, softmax, layernorm, rmsnorm, matmul, attention): a table on stdout, and with -o\n  NAME.csv, NAME.json and NAME.svg per definition',
};
const GENERAL = `usage: tessera <command> [flags]\n\ncommands:\n${Object.values(USAGE).map((u) => '  ' + u.split('\n')[0]).join('\n')}\n\n'tessera <command> --help' describes one command.\n`;

const FLAGS: Record<string, FlagSpec[]> = {
  info: [{ name: 'json', value: false }, { name: 'help', short: 'h', value: false }],
  compile: [
    { name: 'kernel', short: 'k', value: true },
    { name: 'arg', value: true, repeat: true },
    { name: 'constexpr', short: 'D', value: true, repeat: true },
    { name: 'arch', value: true },
    { name: 'num-warps', value: true },
    { name: 'num-stages', value: true },
    { name: 'emit', value: true },
    { name: 'out', short: 'o', value: true },
    { name: 'help', short: 'h', value: false },
  ],
  cache: [{ name: 'json', value: false }, { name: 'help', short: 'h', value: false }],
  bench: [
    { name: 'device', value: true },
    { name: 'out', short: 'o', value: true },
    { name: 'sizes', value: true },
    { name: 'warmup', value: true },
    { name: 'rep', value: true },
    { name: 'help', short: 'h', value: false },
  ],
};

async function dispatch(command: string, rest: string[], io: CliIO): Promise<number> {
  const p = parseFlags(command, rest, FLAGS[command]!);
  if (p.flags.has('help')) {
    io.out(`usage: ${USAGE[command]}\n`);
    return 0;
  }
  switch (command) {
    case 'info': {
      if (p.positional.length) throw new UsageError(command, `unexpected argument '${p.positional[0]}'`);
      const info = collectInfo(io.env);
      io.out(p.flags.has('json') ? JSON.stringify(info, null, 2) + '\n' : formatInfo(info));
      return 0;
    }
    case 'compile': {
      const req = compileRequest(p, io.cwd);
      const { files, result } = await runCompile(req);
      const m = result.metadata;
      io.out(`compiled '${m.name}' for ${m.target} (${m.numWarps} warps${m.registers !== undefined ? `, ${m.registers} registers` : ''})\n`);
      for (const f of files) io.out(`  wrote ${f}\n`);
      return 0;
    }
    case 'cache':
      io.out(runCache(p, io.env));
      return 0;
    case 'bench': {
      // Lazy: the benchmarks load the whole stack only when asked for.
      const { runBenchmarks, BENCHMARKS } = await import('../../bench/all.js');
      const { benchDefinitions } = await import('../../bench/defs/index.js');
      const defNames = benchDefinitions('small').map((d) => d.name);
      const known = [...BENCHMARKS.map((b) => b.name), ...defNames];
      for (const n of p.positional) {
        if (!known.includes(n)) throw new UsageError(command, `unknown benchmark '${n}' (benchmarks: ${known.join(', ')})`);
      }
      const defs = p.positional.filter((n) => defNames.includes(n));
      const others = p.positional.filter((n) => !defNames.includes(n));
      if (defs.length) {
        const { benchRequest, runBenchReports } = await import('./bench.js');
        await runBenchReports(benchRequest(p, defs, io.cwd), benchDefinitions, (s) => io.out(s));
        if (!others.length) return 0;
      } else if (['device', 'out', 'sizes', 'warmup', 'rep'].some((f) => p.flags.has(f))) {
        throw new UsageError(command, 'flags --device, -o, --sizes, --warmup and --rep apply to benchmark definitions; name one');
      }
      const unavailable = await runBenchmarks(others, (s) => io.out(s));
      // Named but unavailable here (the reason is listed above): the command did not do what was asked.
      if (others.length && unavailable.length) {
        io.err(`tessera bench: ${unavailable.join(', ')} cannot run here (see the reason above)\n`);
        return 1;
      }
      return 0;
    }
  }
  return 2;
}

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.err : io.out)(GENERAL);
    return command === undefined ? 2 : 0;
  }
  if (!(command in FLAGS)) {
    io.err(`tessera: unknown command '${command}'\n\n${GENERAL}`);
    return 2;
  }
  try {
    return await dispatch(command, rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`tessera ${command}: ${e.message}\nusage: ${USAGE[command]}\n`);
      return 2;
    }
    if (e instanceof CliInputError || e instanceof TesseraError) {
      io.err(`tessera ${command}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

const isEntry = (): boolean => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
};

if (isEntry()) {
  // `tessera ... | head`: the reader went away; stop quietly, as Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(0);
    });
  }
  const io: CliIO = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), cwd: process.cwd(), env: process.env };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`tessera: internal error: ${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    },
  );
}

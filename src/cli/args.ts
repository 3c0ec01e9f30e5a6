// Command-line flag parsing for `tessera`: each command declares its flags; anything else is a
// UsageError (exit code 2) that names the offending flag.
import { TesseraError } from '../ir/errors.js';

/** Bad command line. Code: E_USAGE. `main` prints it with the command's usage and exits 2. */
export class UsageError extends TesseraError {
  readonly command: string;
  constructor(command: string, message: string) {
    super('E_USAGE', message);
    this.command = command;
  }
}

export interface FlagSpec {
  /** Long name without dashes, e.g. 'num-warps'. */
  readonly name: string;
  readonly short?: string;
  /** false: a boolean switch. */
  readonly value: boolean;
  readonly repeat?: boolean;
}

export interface Parsed {
  readonly positional: string[];
  /** Last value of each single flag; switches map to 'true'. */
  readonly flags: Map<string, string>;
  /** Every value of repeatable flags, in order. */
  readonly lists: Map<string, string[]>;
}

export function parseFlags(command: string, argv: readonly string[], specs: readonly FlagSpec[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const key = eq > 0 && a.startsWith('--') ? a.slice(0, eq) : a;
    const spec = key.startsWith('--') ? byName.get(key.slice(2)) : byShort.get(key.slice(1));
    if (!spec) throw new UsageError(command, `unknown flag '${key}' for 'tessera ${command}'`);
    let value = 'true';
    if (spec.value) {
      if (eq > 0 && a.startsWith('--')) value = a.slice(eq + 1);
      else {
        const next = argv[i + 1];
        if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(command, `flag '${key}' needs a value`);
        value = next;
        i++;
      }
    } else if (eq > 0) {
      throw new UsageError(command, `flag '${key.slice(0, eq)}' takes no value`);
    }
    if (spec.repeat) lists.set(spec.name, [...(lists.get(spec.name) ?? []), value]);
    else if (flags.has(spec.name) && spec.value) throw new UsageError(command, `flag '--${spec.name}' given twice`);
    else flags.set(spec.name, value);
  }
  return { positional, flags, lists };
}

// `tessera cache dir | list [--json] | stats [--json] | clear`: look at and empty the persistent
// compile cache (src/runtime/cache). The directory comes from the CLI's environment
// (TESSERA_CACHE_DIR, XDG_CACHE_HOME, HOME), so it is the one kernels run from there would use.
import { diskCacheEnabled } from '../runtime/cache/cache_dir.js';
import { CompileCache } from '../runtime/cache/compile_cache.js';
import { UsageError, type Parsed } from './args.js';

export const CACHE_SUBCOMMANDS = ['dir', 'list', 'stats', 'clear'] as const;
type Sub = (typeof CACHE_SUBCOMMANDS)[number];

const kib = (n: number): string => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

/** Runs the subcommand; returns the text to print. */
export function runCache(p: Parsed, env: NodeJS.ProcessEnv): string {
  const [sub, extra] = p.positional;
  if (sub === undefined) throw new UsageError('cache', `missing subcommand (one of ${CACHE_SUBCOMMANDS.join(', ')})`);
  if (!(CACHE_SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError('cache', `unknown subcommand '${sub}' (one of ${CACHE_SUBCOMMANDS.join(', ')})`);
  if (extra !== undefined) throw new UsageError('cache', `unexpected argument '${extra}'`);
  const json = p.flags.has('json');
  if (json && (sub === 'dir' || sub === 'clear')) throw new UsageError('cache', `flag '--json' is not accepted by 'tessera cache ${sub}'`);
  // `dir` and `clear` work even when TESSERA_CACHE=0 turned the disk cache off for compiles.
  const cache = new CompileCache({ env, disk: true });
  switch (sub as Sub) {
    case 'dir':
      return `${cache.dir}\n`;
    case 'clear': {
      const n = cache.clear();
      return `removed ${n} ${n === 1 ? 'entry' : 'entries'} from ${cache.dir}\n`;
    }
    case 'list': {
      const entries = cache.list();
      if (json) return JSON.stringify(entries, null, 2) + '\n';
      if (!entries.length) return `no entries in ${cache.dir}\n`;
      const rows = entries.map((e) =>
        e.corrupt
          ? `${e.key.slice(0, 16)}  (corrupt: ${e.corrupt})  ${kib(e.bytes)}`
          : `${e.key.slice(0, 16)}  ${e.name ?? '?'}  ${e.target ?? '?'}  ${e.numWarps ?? '?'} warps  ${e.cubin ? 'ptx+cubin' : 'ptx'}  ${kib(e.bytes)}  ${e.createdAt ?? ''}`,
      );
      return rows.join('\n') + '\n';
    }
    case 'stats': {
      const s = cache.stats();
      const out = { dir: s.dir, enabled: diskCacheEnabled(env), entries: s.entries, bytes: s.bytes };
      if (json) return JSON.stringify(out, null, 2) + '\n';
      return `dir: ${out.dir}\ndisk cache: ${out.enabled ? 'on' : 'off (TESSERA_CACHE=0)'}\nentries: ${out.entries}\nsize: ${kib(out.bytes)} (${out.bytes} bytes)\n`;
    }
  }
}

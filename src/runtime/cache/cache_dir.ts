// Where the persistent compile cache lives and whether it is on: $TESSERA_CACHE_DIR, else
// $XDG_CACHE_HOME/tessera, else ~/.cache/tessera; TESSERA_CACHE=0 turns the disk cache off.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Environment variables, as process.env has them. Spelled out rather than NodeJS.ProcessEnv so that
 * the package's public types resolve in a TypeScript project without @types/node.
 */
export type EnvVars = { readonly [name: string]: string | undefined };

export function resolveCacheDir(env: EnvVars = process.env): string {
  if (env.TESSERA_CACHE_DIR) return resolve(env.TESSERA_CACHE_DIR);
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache');
  return join(xdg, 'tessera');
}

/** false when TESSERA_CACHE is 0 / false / off / no (any case). */
export function diskCacheEnabled(env: EnvVars = process.env): boolean {
  const v = env.TESSERA_CACHE?.trim().toLowerCase();
  return !(v === '0' || v === 'false' || v === 'off' || v === 'no');
}

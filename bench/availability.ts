// Why a benchmark cannot run here, or undefined. Some benchmarks drive native tools that only a
// clone of the repository builds (its native tests and tools: build/bin); an installed package
// has the libraries only, so those benchmarks are listed as unavailable with the reason.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addonPath, notBuiltHint, packageRoot, simLibraryPath } from '../src/runtime/native/addon.js';

/** The path of a native tool of the repository's build (build/bin/NAME). */
export const repoTool = (name: string): string => join(packageRoot(), 'build', 'bin', name);

/** A repository-only tool: unavailable in an installed package (npm install does not build it there). */
export function needsRepoTool(name: string): string | undefined {
  const exe = repoTool(name);
  if (existsSync(exe)) return undefined;
  const clone = existsSync(join(packageRoot(), 'native', 'sim', 'tests'));
  return clone
    ? `needs ${exe}, not built yet (npm run build builds it)`
    : `needs build/bin/${name}, a native tool built only in a clone of the tessera repository (npm install there), not in an installed package`;
}

/** The sim device (addon and sim library) built. */
export function needsSim(): string | undefined {
  if (!existsSync(addonPath())) return `needs the native addon (${addonPath()}): ${notBuiltHint('addon')}`;
  if (!existsSync(simLibraryPath())) return `needs the sim library (${simLibraryPath()}): ${notBuiltHint('sim')}`;
  return undefined;
}

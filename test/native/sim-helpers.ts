// Opens the sim driver for end-to-end tests. A missing library is a test FAILURE (it is built by
// `npm install` / `npm run build`), never a skip. TESSERA_SIM_LIB overrides the path.
import { existsSync } from 'node:fs';
import { loadAddon, simLibraryPath, type Driver } from '../../src/runtime/native/addon.js';
import { NativeDevice } from '../../src/runtime/native/native-device.js';

export function simLibrary(): string {
  const path = process.env.TESSERA_SIM_LIB ?? simLibraryPath();
  if (!existsSync(path)) {
    throw new Error(`the sim driver library is missing (${path}): run \`npm run build\` (cmake builds native/sim)`);
  }
  return path;
}

export const openSimDriver = (): Driver => loadAddon().open(simLibrary());
export const openSimDevice = (): NativeDevice => NativeDevice.open('sim', { libraryPath: simLibrary() });

/** The `code` of what `fn` throws (fails the test when it does not throw). */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  throw new Error('expected a throw');
}

export async function asyncCodeOf(p: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await p();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  throw new Error('expected a rejection');
}

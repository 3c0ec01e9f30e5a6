// `tessera info`: what this installation can do — devices (cuda / sim / interpret) and the default
// one, the sim driver library, the native addon, ptxas and nvcc, and what the native build (npm's
// install hook, scripts/install.mjs) said about the pieces it could not build.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { findPtxas } from '../codegen/ptxas.js';
import { loadAddon, nativeBuildStatus, notBuiltHint, packageRoot, type NativeAddon } from '../runtime/native/addon.js';

export type DeviceName = 'cuda' | 'sim' | 'interpret';
export const DEVICE_NAMES: readonly DeviceName[] = ['cuda', 'sim', 'interpret'];

export interface DeviceStatus {
  /** `cuda:0`, `sim:1`, `interpret:0`: one entry per device of every kind. */
  readonly name: string;
  readonly kind: DeviceName;
  readonly ordinal: number;
  /** e.g. '8.0'; null when unavailable or for the interpreter. */
  readonly computeCapability: string | null;
  /** Total device memory in bytes; null when unavailable or for the interpreter. */
  readonly memoryBytes: number | null;
  readonly available: boolean;
  /** Why not, or what it runs on. */
  readonly detail: string;
}

export interface Info {
  readonly tessera: string;
  readonly node: string;
  readonly devices: DeviceStatus[];
  /** cuda if available, else sim, else interpret; TESSERA_DEVICE forces it. */
  readonly defaultDevice: DeviceName;
  readonly defaultReason: string;
  /** Absolute path of build/lib/libtessera_sim.so when it was built, else null. */
  readonly simDriver: string | null;
  readonly addon: string | null;
  readonly ptxas: { readonly path: string; readonly version: string | null } | null;
  readonly nvcc: string | null;
  /** The native build (build/native-status.json): where it ran, and its line for each missing piece. */
  readonly build: { readonly mode: 'package' | 'clone'; readonly at: string; readonly notes: readonly string[] } | null;
}

function findTool(name: string, env: NodeJS.ProcessEnv): string | null {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  if (env.CUDA_HOME) dirs.push(join(env.CUDA_HOME, 'bin'));
  dirs.push('/usr/local/cuda/bin');
  for (const d of dirs) if (existsSync(join(d, name))) return join(d, name);
  return null;
}

function toolVersion(path: string): string | null {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
  const m = /V(\d+\.\d+\.\d+)/.exec(r.stdout ?? '') ?? /release (\d+\.\d+)/.exec(r.stdout ?? '');
  return m ? m[1]! : null;
}

/** Opens each device of a driver library through the addon and reads its name; the reason when it fails. */
function probeDriver(addon: () => NativeAddon, kind: 'cuda' | 'sim', libraryPath?: string): DeviceStatus[] {
  let count: number;
  try {
    count = addon().deviceCount(libraryPath);
  } catch (e) {
    return [unavailable(kind, 0, (e as Error).message.split('\n')[0]!)];
  }
  if (count === 0) return [unavailable(kind, 0, 'the driver reports no devices')];
  const out: DeviceStatus[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const driver = addon().open(libraryPath, i);
      try {
        const d = driver.deviceInfo();
        const arch = `sm_${d.ccMajor}${d.ccMinor}`;
        out.push({
          name: `${kind}:${i}`, kind, ordinal: i, computeCapability: `${d.ccMajor}.${d.ccMinor}`, memoryBytes: d.totalMemory, available: true,
          detail: `${d.name.includes(arch) ? d.name : `${d.name} (${arch})`}, ${(d.totalMemory / 2 ** 30).toFixed(1)} GiB, via ${driver.libraryPath}`,
        });
      } finally {
        driver.close();
      }
    } catch (e) {
      out.push(unavailable(kind, i, (e as Error).message.split('\n')[0]!));
    }
  }
  return out;
}

const unavailable = (kind: DeviceName, ordinal: number, detail: string): DeviceStatus =>
  ({ name: `${kind}:${ordinal}`, kind, ordinal, computeCapability: null, memoryBytes: null, available: false, detail });

/** What the installation of tessera at `root` (default: this one) can do. */
export function collectInfo(env: NodeJS.ProcessEnv = process.env, root: string = packageRoot()): Info {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const addonFile = join(root, 'build', 'Release', 'tessera_cuda.node');
  const simFile = join(root, 'build', 'lib', 'libtessera_sim.so');
  const addon = existsSync(addonFile) ? addonFile : null;
  const simDriver = existsSync(simFile) ? simFile : null;
  const load = (): NativeAddon => (root === packageRoot() ? loadAddon() : (createRequire(import.meta.url)(addonFile) as NativeAddon));
  const noAddon = `native addon not built: ${notBuiltHint('addon', root)}`;

  const cudaDevices = addon ? probeDriver(load, 'cuda') : [unavailable('cuda', 0, noAddon)];
  let simDevices: DeviceStatus[];
  if (!simDriver) simDevices = [unavailable('sim', 0, `sim driver not built (build/lib/libtessera_sim.so): ${notBuiltHint('sim', root)}`)];
  else if (!addon) simDevices = [unavailable('sim', 0, noAddon)];
  else simDevices = probeDriver(load, 'sim', simDriver);
  const devices: DeviceStatus[] = [
    ...cudaDevices, ...simDevices,
    { name: 'interpret:0', kind: 'interpret', ordinal: 0, computeCapability: null, memoryBytes: null, available: true, detail: 'tile IR interpreter in TypeScript' },
  ];
  const cuda = { ok: cudaDevices.some((d) => d.available) };
  const sim = { ok: simDevices.some((d) => d.available) };

  const forced = env.TESSERA_DEVICE;
  let defaultDevice: DeviceName;
  let defaultReason: string;
  const forcedKind = forced?.split(':')[0];
  if (forced && forcedKind && (DEVICE_NAMES as readonly string[]).includes(forcedKind)) {
    defaultDevice = forcedKind as DeviceName;
    defaultReason = `TESSERA_DEVICE=${forced}`;
  } else {
    defaultDevice = cuda.ok ? 'cuda' : sim.ok ? 'sim' : 'interpret';
    defaultReason = forced ? `TESSERA_DEVICE=${forced} is not one of ${DEVICE_NAMES.join(', ')}; ignored` : 'first available of cuda, sim, interpret';
  }
  const ptxasPath = findPtxas(env);
  const status = nativeBuildStatus(root);
  return {
    tessera: pkg.version,
    node: process.version,
    devices,
    defaultDevice,
    defaultReason,
    simDriver,
    addon,
    ptxas: ptxasPath ? { path: ptxasPath, version: toolVersion(ptxasPath) } : null,
    nvcc: findTool('nvcc', env),
    build: status ? { mode: status.mode, at: status.builtAt, notes: status.lines } : null,
  };
}

export function formatInfo(i: Info): string {
  const lines = [`tessera ${i.tessera} (node ${i.node})`, 'devices:'];
  for (const d of i.devices) lines.push(`  ${d.name.padEnd(12)} ${d.available ? 'yes' : 'no '}  ${d.detail}`);
  lines.push(`default device: ${i.defaultDevice} (${i.defaultReason})`);
  lines.push(`sim driver: ${i.simDriver ?? 'not built'}`);
  lines.push(`native addon: ${i.addon ?? 'not built'}`);
  lines.push(`ptxas: ${i.ptxas ? `${i.ptxas.path} (${i.ptxas.version ?? 'unknown version'})` : 'not found'}`);
  lines.push(`nvcc: ${i.nvcc ?? 'not found'}`);
  if (!i.build) lines.push('native build: none has run (npm install / `npm rebuild tessera` runs it)');
  else {
    lines.push(`native build: ${i.build.mode} build of ${i.build.at}${i.build.notes.length ? '' : ', nothing missing'}`);
    for (const n of i.build.notes) lines.push(`  ${n}`);
  }
  return lines.join('\n') + '\n';
}

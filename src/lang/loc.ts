// Finds the user's source location on the JS stack: the first frame that is not inside Tessera's
// own front end / runtime / IR code (and not Node internals).
//
// Formatting a stack is slow (source-map lookups), so ops get a *lazy* Loc: the stack is captured
// (cheap) when the op is traced and only formatted when someone reads file/line/col.
import type { Loc } from '../ir/ops.js';

// Frames from these folders belong to Tessera, not to the user ('/' or '\' separators).
const INTERNAL = /[\\/]src[\\/](lang|runtime|ir)[\\/]|^node:|[\\/]node_modules[\\/]vitest[\\/]/;
const FRAME = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?\s*$/;
// Frames captured for an op's location. Capturing costs time per frame, so this is kept small:
// `api` captures the stack itself, where the user is ~3 frames up (api <- free function <- Tile
// method <- user); the rest is headroom for front ends that add frames of their own.
export const LOC_FRAMES = 10;

function capture(frames: number): Error {
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = frames;
  const e = new Error();
  Error.stackTraceLimit = saved;
  return e;
}

/** The Loc of one formatted stack frame, or undefined when it is not a user frame. */
function parseFrame(line: string): Loc | undefined {
  const m = FRAME.exec(line.trim());
  if (!m) return undefined;
  const file = m[1]!.replace(/^file:\/\//, '');
  if (INTERNAL.test(file)) return undefined;
  return { file, line: Number(m[2]), col: Number(m[3]) };
}

function resolve(stack: string | undefined): Loc | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const loc = parseFrame(line);
    if (loc) return loc;
  }
  return undefined;
}

// Fast path: formatting the whole stack string dominated tracing, so when the stack would be
// formatted by Node's own default (no source maps, no user override), read the structured call
// sites instead and format only frames that need it. Same result as `resolve(e.stack)`.
type Prepare = (e: Error, sites: NodeJS.CallSite[]) => unknown;
const grabbed: { sites: NodeJS.CallSite[] | undefined } = { sites: undefined };
const grab: Prepare = (_e, sites) => {
  grabbed.sites = sites;
  return '';
};
const ODD_PATH = /[()\s]/;

function nodeFormatsStacks(): boolean {
  const p = (Error as { prepareStackTrace?: Prepare }).prepareStackTrace;
  return (p === undefined || p.name === 'ErrorPrepareStackTrace') && !process.sourceMapsEnabled;
}

/** The user's Loc from the call sites of `e` (whose stack must not have been read yet). */
function resolveSites(e: Error): Loc | undefined {
  const E = Error as { prepareStackTrace?: Prepare };
  const own = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  E.prepareStackTrace = grab;
  grabbed.sites = undefined;
  let stack: string | undefined;
  try {
    stack = e.stack;
  } finally {
    if (own) Object.defineProperty(Error, 'prepareStackTrace', own);
    else delete E.prepareStackTrace;
  }
  const sites = grabbed.sites as NodeJS.CallSite[] | undefined; // set by `grab` while formatting
  grabbed.sites = undefined;
  if (!sites) return resolve(stack); // the stack was already formatted: parse that text
  for (const site of sites) {
    const name = site.getFileName();
    const line = site.getLineNumber();
    const col = site.getColumnNumber();
    let loc: Loc | undefined;
    if (typeof name === 'string' && line !== null && col !== null && !site.isEval() && !ODD_PATH.test(name)) {
      const file = name.startsWith('file://') ? name.slice(7) : name;
      loc = INTERNAL.test(file) ? undefined : { file, line, col };
    } else {
      loc = parseFrame(String(site)); // what the formatted frame would have said
    }
    if (loc) return loc;
  }
  return undefined;
}

/** The user's location now, or undefined when every frame is Tessera's. */
export function userLoc(): Loc | undefined {
  return resolve(capture(64).stack);
}

const UNKNOWN: Loc = { file: '<unknown>', line: 0, col: 0 };

/**
 * A Loc whose fields are computed on first read from `e`, an Error created by the caller with
 * `Error.stackTraceLimit = LOC_FRAMES` (line 0 when no user frame is among them).
 */
export function lazyLoc(e: Error): Loc {
  let r: Loc | undefined;
  const get = (): Loc => (r ??= (nodeFormatsStacks() ? resolveSites(e) : resolve(e.stack)) ?? UNKNOWN);
  return {
    get file() { return get().file; },
    get line() { return get().line; },
    get col() { return get().col; },
  };
}

/** A plain copy of a Loc, or undefined for an unknown one. */
export const knownLoc = (loc: Loc | undefined): Loc | undefined =>
  loc && loc.line > 0 ? { file: loc.file, line: loc.line, col: loc.col } : undefined;

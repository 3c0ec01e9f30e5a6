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

function resolve(stack: string | undefined): Loc | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = FRAME.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.replace(/^file:\/\//, '');
    if (INTERNAL.test(file)) continue;
    return { file, line: Number(m[2]), col: Number(m[3]) };
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
  const get = (): Loc => (r ??= resolve(e.stack) ?? UNKNOWN);
  return {
    get file() { return get().file; },
    get line() { return get().line; },
    get col() { return get().col; },
  };
}

/** A plain copy of a Loc, or undefined for an unknown one. */
export const knownLoc = (loc: Loc | undefined): Loc | undefined =>
  loc && loc.line > 0 ? { file: loc.file, line: loc.line, col: loc.col } : undefined;

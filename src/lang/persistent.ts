// Persistent kernels: one program per SM walks the output tiles itself, as Triton's persistent
// matmul writes `for tile_id in range(start_pid, num_tiles, NUM_SMS)`. The loop is an ordinary
// device forLoop (programId(axis) stepping by numPrograms(axis)), so everything the compiler does
// for nested loops applies: the inner K-loop of a persistent matmul keeps its cp.async / TMA ring
// (docs/compiler.md, "Persistent kernels"). Launch with `grid: 'sms'` for one program per SM.
import { forLoop } from './control.js';
import { programId, numPrograms } from './creation.js';
import { describe, rem, type TileLike } from './semantic.js';
import { truncDiv } from './intops.js';
import { swizzle2d } from './rearrange.js';
import type { Tile } from './tile.js';
import { api } from './trace.js';

/**
 * `for (tile = programId(axis); tile < numTiles; tile += numPrograms(axis)) body(tile)`: each
 * program takes every numPrograms-th tile, starting at its own id (a program past the last tile
 * runs no iteration). The body returns nothing (results leave through stores).
 */
export const persistentTiles = (numTiles: TileLike, body: (tile: Tile) => void, axis: 0 | 1 | 2 = 0): void =>
  api('persistentTiles', (t) => {
    if (typeof body !== 'function') return t.fail('E_ARG', `persistentTiles needs a body function, got ${describe(body)}`);
    forLoop(programId(axis), numTiles, numPrograms(axis), [], (tile) => {
      body(tile);
    });
  });

/**
 * The (row, column) of linear tile `tile` of a tilesM x tilesN grid of output tiles in grouped
 * order: tiles are numbered row-major, then each band of groupM tile rows is walked column-major
 * (the last band may be shorter), so consecutive tiles share A's rows and B's columns in L2.
 * Triton's `swizzle2d(tile // tilesN, tile % tilesN, tilesM, tilesN, groupM)`; a bijection of
 * 0 .. tilesM*tilesN-1.
 */
export function groupedTile(tile: TileLike, tilesM: TileLike, tilesN: TileLike, groupM: TileLike): [Tile, Tile] {
  return api('groupedTile', () => swizzle2d(truncDiv(tile, tilesN), rem(tile, tilesN), tilesM, tilesN, groupM));
}

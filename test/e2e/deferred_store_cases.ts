// PTX surgery for the deferred epilogue-store wait (codegen/async/deferred_store_wait.ts) and the
// plain ring's next-tile prefetch: sabotages that cut one of the waits out.
import { expect } from 'vitest';

const cut = (ptx: string, comment: RegExp): string => {
  const re = new RegExp(`(${comment.source}[^\\n]*\\n(?:\\s*and\\.pred[^\\n]*\\n)?)\\s*@%p\\d+ cp\\.async\\.bulk\\.wait_group 0;\\n`);
  expect(ptx).toMatch(re);
  return ptx.replace(re, '$1');
};

/** Sabotage: the epilogue rewrites its shared tile while the previous tile's store may still read it. */
export const dropReuseWait = (ptx: string): string => cut(ptx, /\/\/ deferred epilogue store: the previous tile's store has drained/);

/** Sabotage: the next tile's loads are released before this tile's stores have completed (c aliasing a). */
export const dropOrderedWait = (ptx: string): string => cut(ptx, /\/\/ deferred epilogue store: the next tile's loads may read what it stored/);

/** Sabotage: the plain ring prefetches the next tile even where a store may overlap a ring tensor. */
export function alwaysPrefetch(ptx: string): string {
  const re = /(\/\/ the next tile's first stages, before this tile's epilogue[^\n]*\n(?:\s*[^\n]*\n){2}\s*)setp\.lt\.and\.s32 (%p\d+), (%r\d+), (%r\d+), %p\d+;/;
  expect(ptx).toMatch(re);
  return ptx.replace(re, '$1setp.lt.s32 $2, $3, $4;');
}

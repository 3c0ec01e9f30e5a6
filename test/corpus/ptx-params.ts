// The kernel-parameter layout of a PTX .entry, read from its .param list: each param's type, size
// and offset in the argument buffer (aligned to its own alignment, as the driver lays them out).
export interface PtxParam {
  readonly name: string;
  /** The scalar type (u32, f64, b8 for byte arrays ...). */
  readonly type: string;
  readonly size: number;
  readonly offset: number;
}

const SIZES: Record<string, number> = { 8: 1, 16: 2, 32: 4, 64: 8 };

export function entryParams(ptx: string, entry: string): PtxParam[] {
  const at = ptx.search(new RegExp(`\\.entry\\s+${entry.replace(/[$]/g, '\\$')}\\s*\\(`));
  if (at < 0) throw new Error(`no .entry ${entry} in the PTX`);
  const open = ptx.indexOf('(', at);
  const close = ptx.indexOf(')', open);
  const body = ptx.slice(open + 1, close).replace(/\/\/[^\n]*/g, '');
  const params: PtxParam[] = [];
  let offset = 0;
  for (const raw of body.split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
    const words = raw.split(/\s+/);
    if (words[0] !== '.param') throw new Error(`unexpected entry parameter '${raw}'`);
    const typeWord = words.find((w) => /^\.[bsuf](8|16|32|64)$/.test(w));
    if (!typeWord) throw new Error(`no type in entry parameter '${raw}'`);
    const type = typeWord.slice(1);
    const elem = SIZES[type.slice(1)]!;
    const last = words[words.length - 1]!;
    const arr = /\[(\d+)\]$/.exec(last);
    const size = arr ? elem * Number(arr[1]) : elem;
    // `.ptr .align N` describes the pointee; only an array's `.align` sets the param's alignment.
    const alignAt = words.indexOf('.align');
    const align = arr && alignAt >= 0 && !words.includes('.ptr') ? Number(words[alignAt + 1]) : elem;
    offset = Math.ceil(offset / align) * align;
    params.push({ name: arr ? last.slice(0, arr.index) : last, type, size, offset });
    offset += size;
  }
  return params;
}

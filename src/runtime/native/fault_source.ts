// Maps the sim's memory-checker report back to the user's TypeScript: the report names a PTX line,
// and the `.loc` directive in force at that line (the last one before it in the same function)
// names the file:line:col of the op that emitted it (see codegen/render.ts). The located message
// leads with that user line; the driver call that returned the fault comes after it.
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

const LOC = /^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)/;
const FILE = /^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"/;
const FUNC_START = /^\s*(?:\.visible\s+|\.weak\s+)?(?:\.entry|\.func)\b/;

/** The source location of 1-based PTX line `line`, or undefined when no `.loc` covers it. */
export function ptxLineSource(ptx: string, line: number): SourceLocation | undefined {
  const lines = ptx.split('\n');
  if (!Number.isInteger(line) || line < 1 || line > lines.length) return undefined;
  let loc: RegExpExecArray | null = null;
  for (let i = line - 1; i >= 0 && !loc; i--) {
    const text = lines[i]!;
    loc = LOC.exec(text);
    if (!loc && FUNC_START.test(text)) break; // a .loc of the previous function does not apply
  }
  if (!loc) return undefined;
  const fileIndex = loc[1]!;
  for (const text of lines) {
    const f = FILE.exec(text);
    if (f && f[1] === fileIndex) {
      return { file: JSON.parse(`"${f[2]!}"`) as string, line: Number(loc[2]), col: Number(loc[3]) };
    }
  }
  return undefined;
}

/**
 * The sim's report with the user's source beside the PTX line:
 * "... at PTX line 58 (src/app.ts:12:5), CTA ..." — unchanged when the line has no `.loc`.
 */
export function withSourceLocation(message: string, ptx: string): string {
  return message.replace(/at PTX line (\d+)(?! \()/g, (whole, n: string) => {
    const s = ptxLineSource(ptx, Number(n));
    return s ? `${whole} (${s.file}:${s.line}:${s.col})` : whole;
  });
}

const REPORT = 'tessera-sim: ';

/**
 * A driver error carrying the sim's report, reordered for the user: the report's first located
 * line first, prefixed with the user's `file:line:col: `, then the rest of the report, then the
 * driver call that returned the fault (`cuEventCreate failed: CUDA_ERROR_ILLEGAL_ADDRESS ...`).
 * A message without a located report only gets its PTX lines located (withSourceLocation).
 */
export function leadWithSource(message: string, ptx: string): { message: string; loc?: SourceLocation } {
  const lines = message.split('\n');
  const at = lines.findIndex((l) => l.startsWith(REPORT));
  if (at <= 0) return { message: withSourceLocation(message, ptx) };
  let loc: SourceLocation | undefined;
  for (const m of lines[at]!.matchAll(/at PTX line (\d+)(?! \()/g)) {
    loc = ptxLineSource(ptx, Number(m[1]));
    if (loc) break;
  }
  const report = withSourceLocation(lines.slice(at).join('\n'), ptx);
  const driver = lines.slice(0, at).join('\n');
  if (!loc) return { message: `${driver}\n${report}` };
  return { message: `${loc.file}:${loc.line}:${loc.col}: ${report}\n${driver}`, loc };
}

// The PTX emitter: virtual registers by kind plus a list of lines. `PtxEmitter` is the shape the
// math library (src/codegen/math/math.ts) writes through; `PtxBuilder` is our implementation.

export type RegKind = 'f32' | 'f64' | 'b16' | 'b32' | 'b64' | 'pred' | 'u32' | 's32' | 'u64' | 's64' | 'f16' | 'bf16';

export interface PtxEmitter {
  reg(kind: RegKind): string;
  emit(line: string): void;
}

/** Register classes as declared in the entry: prefix and PTX declaration type. */
const CLASS: Record<RegKind, { prefix: string; decl: string }> = {
  f32: { prefix: '%f', decl: '.f32' },
  f64: { prefix: '%fd', decl: '.f64' },
  b16: { prefix: '%h', decl: '.b16' },
  f16: { prefix: '%h', decl: '.b16' },
  bf16: { prefix: '%h', decl: '.b16' },
  b32: { prefix: '%r', decl: '.b32' },
  u32: { prefix: '%r', decl: '.b32' },
  s32: { prefix: '%r', decl: '.b32' },
  b64: { prefix: '%rd', decl: '.b64' },
  u64: { prefix: '%rd', decl: '.b64' },
  s64: { prefix: '%rd', decl: '.b64' },
  pred: { prefix: '%p', decl: '.pred' },
};

export class PtxBuilder implements PtxEmitter {
  private readonly counts = new Map<string, number>();
  private labels = 0;
  /** Lines of the body; `prologue` lines run first (thread ids, layout bases). */
  readonly lines: string[] = [];
  readonly prologue: string[] = [];

  reg(kind: RegKind): string {
    const c = CLASS[kind];
    const n = this.counts.get(c.prefix) ?? 0;
    this.counts.set(c.prefix, n + 1);
    return `${c.prefix}${n}`;
  }
  emit(line: string): void {
    this.lines.push(`\t${line}`);
  }
  emitPrologue(line: string): void {
    this.prologue.push(`\t${line}`);
  }
  label(prefix: string): string {
    return `$L_${prefix}_${this.labels++}`;
  }
  placeLabel(l: string): void {
    this.lines.push(`${l}:`);
  }
  raw(line: string): void {
    this.lines.push(line);
  }
  /** `.reg` declarations for every register handed out. */
  declarations(): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const c of Object.values(CLASS)) {
      if (seen.has(c.prefix)) continue;
      seen.add(c.prefix);
      const n = this.counts.get(c.prefix);
      if (n) out.push(`\t.reg ${c.decl} ${c.prefix}<${n}>;`);
    }
    return out;
  }
}

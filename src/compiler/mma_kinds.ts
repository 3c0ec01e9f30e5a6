// Which mma.sync instruction a dot can use, as data: input dtype (and inputPrecision) -> the
// instruction shape and operand types, and the dot accumulator dtypes each one can feed. The
// layout pass and the codegen both read this table (through mmaKindOf), so they cannot disagree.
import type { Op } from '../ir/ops.js';

/** One mma.sync form (all are m16n8kK, row.col; fragment layouts from the PTX ISA). */
export interface MmaKind {
  /** PTX type of the a operand (and of b, unless inputB says otherwise). */
  readonly input: 'f16' | 'bf16' | 'tf32' | 's8' | 'u8' | 'e4m3' | 'e5m2';
  /** PTX type of the b operand when it differs from a's (fp8: e4m3 x e5m2 and e5m2 x e4m3). */
  readonly inputB?: MmaKind['input'];
  /** k of the instruction: 16 (16-bit inputs), 8 (tf32), 32 (8-bit inputs). */
  readonly k: number;
  /** Bytes of one a/b element in shared memory (every kind reads 32 bytes of a row per k-step). */
  readonly bytes: number;
  /** PTX type of the mma's C/D fragments for this dot. */
  readonly acc: 'f32' | 'f16' | 's32';
}

interface Entry {
  readonly input: MmaKind['input'];
  readonly k: number;
  readonly bytes: number;
  /** dot accumulator dtype -> mma accumulator type (absent: the dot stays on FMA). */
  readonly accs: Readonly<Record<string, MmaKind['acc']>>;
}

// Half accumulators the instruction has no form for are widened to f32 for the dot and rounded
// once at its end (bf16 always; f16 with bf16 or tf32 inputs). s32 covers u32 bit for bit.
const HALF: Entry['accs'] = { f32: 'f32', f16: 'f32', bf16: 'f32' };
const TABLE: Readonly<Record<string, Entry>> = {
  f16: { input: 'f16', k: 16, bytes: 2, accs: { f32: 'f32', f16: 'f16', bf16: 'f32' } },
  bf16: { input: 'bf16', k: 16, bytes: 2, accs: HALF },
  // f32 inputs only with inputPrecision 'tf32' (mmaKindOf); 'ieee' stays exact on FMA
  f32: { input: 'tf32', k: 8, bytes: 4, accs: HALF },
  i8: { input: 's8', k: 32, bytes: 1, accs: { i32: 's32', u32: 's32' } },
  u8: { input: 'u8', k: 32, bytes: 1, accs: { i32: 's32', u32: 's32' } },
  // fp8 (sm_89+ mma.sync; on sm_80 the codegen widens the fragments to f16, exactly, and runs the
  // f16 form twice per k32 step). a and b may be the two different fp8 types.
  f8e4m3: { input: 'e4m3', k: 32, bytes: 1, accs: { f32: 'f32', f16: 'f16' } },
  f8e5m2: { input: 'e5m2', k: 32, bytes: 1, accs: { f32: 'f32', f16: 'f16' } },
};
const isFp8Input = (t: string): boolean => t === 'f8e4m3' || t === 'f8e5m2';

/**
 * The mma form for a dot with inputs `ta`, `tb`, accumulator `tc` and `inputPrecision`, or
 * undefined when no tensor-core instruction computes it (f64, f32 'ieee', wide ints, mixed
 * inputs other than the two fp8 types, an accumulator the instruction cannot feed). Shapes are checked by mmaLayoutForDot.
 */
export function mmaKindOf(ta: string, tb: string, tc: string, inputPrecision: string): MmaKind | undefined {
  if (ta !== tb && !(isFp8Input(ta) && isFp8Input(tb))) return undefined;
  if (ta === 'f32' && inputPrecision !== 'tf32') return undefined;
  const e = TABLE[ta];
  const acc = e?.accs[tc];
  if (!e || !acc) return undefined;
  return ta === tb ? { input: e.input, k: e.k, bytes: e.bytes, acc } : { input: e.input, inputB: TABLE[tb]!.input, k: e.k, bytes: e.bytes, acc };
}

/** A dot op's inputPrecision attribute ('ieee' when absent). */
export const dotInputPrecision = (op: Op): string => (op.attrs as { inputPrecision?: string }).inputPrecision ?? 'ieee';

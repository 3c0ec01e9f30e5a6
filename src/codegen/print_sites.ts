// What the host needs to turn a kernel's device prints and failed asserts back into the
// interpreter's lines and errors (runtime/native/device_prints.ts). Each `print` and `assert` op
// lowered is a site; every vprintf call it makes passes, after the arguments its format consumes,
// two words the format never reads (real drivers ignore them): the thread's count of print/assert
// ops executed so far (the order of the program's lines) and the site's index here.
import type { Loc } from '../ir/ops.js';
import { isPtr, type ElemType } from '../ir/types.js';

export interface PrintSite {
  readonly kind: 'print';
  readonly prefix: string;
  readonly hex: boolean;
  /** The operands' dtypes, in the order of the format's values. */
  readonly dtypes: readonly ElemType[];
  /** The shape of the first tile operand ([] when every operand is a scalar): the `idx (...)` part. */
  readonly shape: readonly number[];
}

export interface AssertSite {
  readonly kind: 'assert';
  readonly message: string;
  /** The condition's shape: the failing lane is a row-major index into it. */
  readonly shape: readonly number[];
  readonly loc?: Loc;
}

export type DeviceSite = PrintSite | AssertSite;

/** Bytes of one formatted value in a vprintf argument pack (printf's promotions, as lower_print.ts packs them). */
export function argBytes(t: ElemType, hex: boolean): 4 | 8 {
  if (isPtr(t) || t === 'f64' || t === 'i64') return 8;
  if (t === 'f32' || t === 'f16' || t === 'bf16') return hex ? 4 : 8;
  return 4;
}

// One `stablehlo.custom_call`: target, operands, results, api_version, backend_config (opaque
// bytes for the legacy APIs, a dictionary for the typed FFI), default row-major layouts, and the
// attributes a partitioner reads (sdy.sharding_rule, the num_batch_dims frontend attribute).
import type { ShapedArray } from './aval.js';
import type { LoweringContext } from './lowering.js';
import { mlirBytes, mlirDict, mlirStringDict, rowMajorLayout, tensorType, type AttrValue } from './mlir_text.js';
import { shardingRuleText, type ShardingRule } from './sharding.js';

/** XLA's custom-call API versions as StableHLO numbers them. */
export const API_VERSION = { original: 1, statusReturning: 2, statusReturningUnified: 3, typedFfi: 4 } as const;

export interface CustomCallSpec {
  readonly target: string;
  readonly operands: readonly string[];
  readonly results: readonly ShapedArray[];
  readonly apiVersion: 1 | 2 | 3 | 4;
  /** Opaque bytes (API 1-3) or the attribute dictionary (API 4). */
  readonly backendConfig: Uint8Array | Readonly<Record<string, AttrValue>>;
  readonly hasSideEffect?: boolean;
  /** result index -> operand index: XLA gives the result the operand's buffer. */
  readonly outputOperandAliases?: ReadonlyMap<number, number>;
  readonly shardingRule?: ShardingRule;
  readonly frontendAttributes?: Readonly<Record<string, string>>;
}

const TARGET = /^[A-Za-z_][A-Za-z0-9_.$-]*$/;

export function emitCustomCall(ctx: LoweringContext, s: CustomCallSpec): string[] {
  if (!TARGET.test(s.target)) throw new Error(`custom call target '${s.target}' is not a symbol name`);
  const isBytes = s.backendConfig instanceof Uint8Array;
  if (isBytes === (s.apiVersion === 4)) throw new Error(`custom call ${s.target}: api_version ${s.apiVersion} takes ${s.apiVersion === 4 ? 'a dictionary' : 'opaque bytes'} as backend_config`);
  const ins = ctx.avalsIn;
  const attrs = [
    `api_version = ${s.apiVersion} : i32`,
    `backend_config = ${isBytes ? mlirBytes(s.backendConfig as Uint8Array) : mlirDict(s.backendConfig as Record<string, AttrValue>)}`,
    ...(s.hasSideEffect ? ['has_side_effect = true'] : []),
    `operand_layouts = [${ins.map((a) => rowMajorLayout(a.shape.length)).join(', ')}]`,
    ...(s.outputOperandAliases?.size
      ? [`output_operand_aliases = [${[...s.outputOperandAliases].map(([r, o]) =>
        `#stablehlo.output_operand_alias<output_tuple_indices = [${s.results.length > 1 ? r : ''}], operand_index = ${o}, operand_tuple_indices = []>`).join(', ')}]`]
      : []),
    `result_layouts = [${s.results.map((a) => rowMajorLayout(a.shape.length)).join(', ')}]`,
    ...(s.frontendAttributes ? [`mhlo.frontend_attributes = ${mlirStringDict(s.frontendAttributes)}`] : []),
    ...(s.shardingRule ? [`sdy.sharding_rule = ${shardingRuleText(s.shardingRule, ins, s.results)}`] : []),
  ];
  const types = `(${ins.map(tensorType).join(', ')}) -> ${s.results.length === 1 ? tensorType(s.results[0]!) : `(${s.results.map(tensorType).join(', ')})`}`;
  return ctx.op(s.results, `stablehlo.custom_call @${s.target}(${s.operands.join(', ')}) {${attrs.join(', ')}} : ${types}`);
}

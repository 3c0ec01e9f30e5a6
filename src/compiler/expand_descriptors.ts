// Tensor descriptors without TMA: a desc_load / desc_store becomes the masked load / store a user
// would write by hand (Triton's fallback for targets without TMA):
//   idx_d  = offset_d + arange(0, block_d)               (broadcast to the block)
//   mask   = AND over d of (0 <= idx_d < shape_d)
//   ptrs   = base + sum_d idx_d * stride_d
//   load(ptrs, mask, other = 0) / store(ptrs, value, mask)
// It runs before the IR passes, so the index math is folded, CSE'd and hoisted like any other,
// and a load in a loop feeding a dot is pipelined with cp.async as any masked load is.
// `keep` names the desc ops the target lowers itself (TMA on sm_90a: whyNotLaunchMap finds none).
import type { Block, ConstValue, Func, Op, OpAttrs, OpKind, Value } from '../ir/ops.js';
import { descOperands } from '../ir/tensor_desc.js';
import { isInt, ptrOf, pointee, type DType, type PtrType, type TileType } from '../ir/types.js';
import { maxValueId } from '../ir/walk.js';

/**
 * Why a desc op cannot use a tensor map the runtime builds at launch, or undefined when it can:
 * its base must be a pointer parameter, its shape and strides parameters (an integer parameter
 * cast to i32 counts) or constants, so that the launcher can read them from the arguments.
 */
export function whyNotLaunchMap(f: Func, op: Op): string | undefined {
  if (op.kind !== 'desc_load' && op.kind !== 'desc_store') return `not a descriptor op ('${op.kind}')`;
  const params = new Set(f.body.args.map((a) => a.id));
  const consts = new Set<number>();
  const casts = new Set<number>(); // an integer parameter cast to i32 (an i64 shape, say)
  const see = (b: Block): void => {
    for (const o of b.ops) {
      if (o.kind === 'const') consts.add(o.results[0]!.id);
      if (o.kind === 'cast' && params.has(o.operands[0]!.id) && isInt(o.operands[0]!.type.elem)) casts.add(o.results[0]!.id);
      o.regions.forEach(see);
    }
  };
  see(f.body);
  const d = descOperands(op as Op<'desc_load'>);
  const known = (v: Value): boolean => params.has(v.id) || consts.has(v.id) || casts.has(v.id);
  if (!params.has(d.base.id)) return 'its base is computed in the kernel (not a pointer parameter)';
  const r = d.shape.length;
  for (let k = 0; k < r; k++) if (!known(d.shape[k]!)) return `shape[${k}] is computed in the kernel`;
  for (let k = 0; k < r; k++) if (!known(d.strides[k]!)) return `strides[${k}] is computed in the kernel`;
  return undefined;
}

/** The 'descriptors' stage: each desc op and how it is lowered (TMA, or masked loads and why); '' when none. */
export function descriptorPlan(f: Func, whyNot: (op: Op) => string | undefined): string {
  const out: string[] = [];
  const see = (b: Block): void => {
    for (const o of b.ops) {
      if (o.kind === 'desc_load' || o.kind === 'desc_store') {
        const why = whyNot(o);
        const at = o.loc ? ` (${o.loc.file.split('/').pop()}:${o.loc.line})` : '';
        const what = o.kind === 'desc_load' ? `%${o.results[0]!.id} = desc_load` : 'desc_store';
        out.push(`${what} [${(o as Op<'desc_load'>).attrs.block.join(', ')}]${at}: ${why ? `masked ${o.kind === 'desc_load' ? 'loads' : 'stores'} (${why})` : 'TMA, tensor map built at launch'}`);
      }
      o.regions.forEach(see);
    }
  };
  see(f.body);
  return out.join('\n');
}

/** `f` with every desc op for which `keep` is false rewritten into ordinary ops. */
export function expandDescriptors(f: Func, keep: (op: Op) => boolean = () => false): Func {
  let any = false;
  const scan = (b: Block): void => {
    for (const o of b.ops) {
      if ((o.kind === 'desc_load' || o.kind === 'desc_store') && !keep(o)) any = true;
      o.regions.forEach(scan);
    }
  };
  scan(f.body);
  if (!any) return f;
  let next = maxValueId(f) + 1;
  const block = (b: Block): Block => {
    const ops: Op[] = [];
    for (const o of b.ops) {
      if ((o.kind === 'desc_load' || o.kind === 'desc_store') && !keep(o)) expand(o as Op<'desc_load'> | Op<'desc_store'>, ops);
      else ops.push(o.regions.length ? { ...o, regions: o.regions.map(block) } : o);
    }
    return { args: b.args, ops };
  };
  const expand = (op: Op<'desc_load'> | Op<'desc_store'>, out: Op[]): void => {
    const emit = <K extends OpKind>(kind: K, operands: Value[], type: TileType | undefined, attrs: OpAttrs[K], result?: Value): Value => {
      const r = result ?? (type ? { id: next++, type } : undefined);
      out.push({ kind, operands, results: r ? [r] : [], attrs, regions: [], ...(op.loc ? { loc: op.loc } : {}) } as Op);
      return r!;
    };
    const blk = op.attrs.block;
    const rank = blk.length;
    const d = descOperands(op);
    const elem = pointee(d.base.type.elem as PtrType) as DType;
    const full = (e: TileType['elem']): TileType => ({ elem: e, shape: [...blk] });
    const cnst = (value: ConstValue, t: TileType): Value => emit('const', [], t, { value });
    const splat = (s: Value): Value => emit('splat', [s], full(s.type.elem), {});
    let offset: Value | undefined;
    let mask: Value | undefined;
    for (let k = 0; k < rank; k++) {
      // idx along dim k, shaped [1, .., block_k, .., 1] then broadcast to the block
      let idx = emit('arange', [], { elem: 'i32', shape: [blk[k]!] }, { start: 0, end: blk[k]! });
      idx = emit('binary', [emit('splat', [d.offsets[k]!], { elem: 'i32', shape: [blk[k]!] }, {}), idx], { elem: 'i32', shape: [blk[k]!] }, { fn: 'add', precise: false });
      let shape = [blk[k]!];
      for (let j = k - 1; j >= 0; j--) idx = emit('expand_dims', [idx], { elem: 'i32', shape: (shape = [1, ...shape]) }, { axis: 0 });
      for (let j = k + 1; j < rank; j++) idx = emit('expand_dims', [idx], { elem: 'i32', shape: (shape = [...shape, 1]) }, { axis: shape.length - 1 });
      if (rank > 1) idx = emit('broadcast', [idx], full('i32'), { shape: [...blk] });
      const inside = emit('binary', [
        emit('cmp', [idx, cnst(0, full('i32'))], full('bool'), { pred: 'ge' }),
        emit('cmp', [idx, splat(d.shape[k]!)], full('bool'), { pred: 'lt' }),
      ], full('bool'), { fn: 'and', precise: false });
      mask = mask ? emit('binary', [mask, inside], full('bool'), { fn: 'and', precise: false }) : inside;
      const term = emit('binary', [idx, splat(d.strides[k]!)], full('i32'), { fn: 'mul', precise: false });
      offset = offset ? emit('binary', [offset, term], full('i32'), { fn: 'add', precise: false }) : term;
    }
    const ptrs = emit('addptr', [splat(d.base), offset!], full(ptrOf(elem)), {});
    if (op.kind === 'desc_load') {
      const zero = cnst(elem === 'i64' ? 0n : (op as Op<'desc_load'>).attrs.padding === 'nan' ? NaN : 0, full(elem));
      emit('load', [ptrs, mask!, zero], undefined, { hasMask: true, hasOther: true, cache: '', eviction: '', volatile: false }, op.results[0]!);
    } else {
      emit('store', [ptrs, d.value!, mask!], undefined, { hasMask: true, cache: '', eviction: '' });
    }
  };
  return { ...f, body: block(f.body) };
}

export { analyzeAxisInfo, type AxisInfo, type ParamSpec, type Specialization } from './axis_info.js';
export { assignLayouts, type LayoutPlan } from './layout_assign.js';
export { blockedFor, layoutToString, type Layout, type BlockedLayout, type SliceLayout } from './layout.js';
export { CompileError, PtxasError } from './errors.js';

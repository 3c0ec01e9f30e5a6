// The compile driver: the passes (src/compiler), then PTX rendering (src/codegen), then ptxas.
export { compile, TARGETS, type CompileOptions, type CompileResult, type CompileMetadata, type Stage, type Target, type Traceable } from './compile.js';

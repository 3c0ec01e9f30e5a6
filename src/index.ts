// Public entry point of the `tessera` package.
export * from './ir/index.js';
export * from './lang/index.js';
export * from './runtime/index.js';
export * from './interpret/index.js';
export * from './compiler/index.js';
export * from './compile/index.js';
// Primitives (abstract eval, StableHLO lowering, vjp, vmap, sharding) as a namespace: some names
// (vmap, trace) would clash with the kernel language's.
export * as primitive from './primitive/index.js';
// Ready, tuned kernels for servers (matmul, norms, RoPE, sampling, attention): `ops.matmul(...)`.
export * as ops from './ops/index.js';

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

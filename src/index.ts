// Public entry point of the `tessera` package.
export * from './ir/index.js';
export * from './lang/index.js';
export * from './runtime/index.js';
export * from './interpret/index.js';
export * from './compiler/index.js';

// Public entry point of the `tessera` package.
export * from './ir/index.js';

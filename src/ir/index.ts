export * from './types.js';
export * from './ops.js';
export { IRBuilder } from './builder.js';

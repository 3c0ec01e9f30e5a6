import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    // Hooks compile, spawn servers and drain them: vitest's default of 10 s is too tight for a
    // CI runner running the whole suite on 2 cores. A bound on a hang, not a timing.
    hookTimeout: 120_000,
    pool: 'forks',
    // Creates .venv (jax/jaxlib for the XLA tests) when it is missing.
    globalSetup: ['test/setup/python-env.ts'],
  },
});

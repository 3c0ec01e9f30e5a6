import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    // Creates .venv (jax/jaxlib for the XLA tests) when it is missing.
    globalSetup: ['test/setup/python-env.ts'],
  },
});

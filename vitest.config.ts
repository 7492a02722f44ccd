import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/server/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});

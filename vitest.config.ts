import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/server/**/*.test.ts',
      'test/fleet/**/*.test.ts',
      'test/sync/**/*.test.ts',
    ],
    environment: 'node',
    testTimeout: 20_000,
    // The soak test forces GC to compare heap before and after.
    execArgv: ['--expose-gc'],
  },
});

/**
 * Process entry of `npm start`: turns on Node's compile cache before any TypeScript loads (see
 * server/bin.mjs for why), then runs start.ts.
 */
import module from 'node:module';

module.enableCompileCache?.();
await import('./start.ts');

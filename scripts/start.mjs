/**
 * Process entry of `npm start`: says what to do on a Node too old for TypeScript (scripts/node-version.mjs),
 * turns on Node's compile cache before any TypeScript loads (see server/bin.mjs for why), then runs start.ts.
 * Plain JavaScript, so that Node 20 reads it far enough to print the message.
 */
import module from 'node:module';
import { requireNode } from './node-version.mjs';

requireNode();
module.enableCompileCache?.();
await import('./start.ts');

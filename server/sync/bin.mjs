/** Process entry of the sync server (`npm run sync-server`): Node's compile cache on, then main.ts (see server/bin.mjs). */
import module from 'node:module';

module.enableCompileCache?.();
await import('./main.ts');

/**
 * Process entry of the lab server (`npm run lab`): turns on Node's compile cache, then runs main.ts.
 *
 * Why a JavaScript file: Node strips TypeScript's types with a WebAssembly compiler that it loads
 * on the first .ts file. With the compile cache on before any .ts file loads, later starts reuse the
 * stripped code and never load that compiler: the idle server's RSS drops from about 105 MB to
 * 72 MB (measured with `node bench/server.ts`). The cache lives in the OS temp dir, is keyed by each
 * file's content, and is ignored when NODE_DISABLE_COMPILE_CACHE is set.
 */
import module from 'node:module';

module.enableCompileCache?.();
await import('./main.ts');

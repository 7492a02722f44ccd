/**
 * `npm start`: builds the site when dist/ is missing or older than the sources, then serves it on
 * 127.0.0.1 and prints the URL. (The lab server takes over serving once it lands.)
 */
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let t = statSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    t = Math.max(t, statSync(p).isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const env = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
const built = existsSync('dist/index.html') ? statSync('dist/index.html').mtimeMs : 0;
if (built < Math.max(newest('src'), newest('content'), newest('public'))) {
  console.log('Building the site…');
  const r = spawnSync('npx', ['astro', 'build'], { stdio: 'inherit', env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const port = process.env['PORT'] ?? '4321';
const child = spawn('npx', ['astro', 'preview', '--host', '127.0.0.1', '--port', port], { stdio: ['ignore', 'ignore', 'inherit'], env });
console.log(`Saturate is running at http://127.0.0.1:${port}/ (Ctrl+C to stop)`);
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 0));

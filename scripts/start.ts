/**
 * `npm start`: one origin for the site and the lab. Builds the Astro site when dist/ is missing or
 * older than its sources (src/, content/, public/, astro.config.mjs), quietly (scripts/site-build.ts),
 * then starts the lab server serving dist/ beside the API (source `auto` unless --source says otherwise)
 * and prints the URL with its token, last. A failed build is not fatal: whatever dist/ holds is served, with a warning.
 * Extra flags go to the lab server: `npm start -- --port 0 --source sim:data-starved`; $PORT sets the port.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCodeOf, parseCli, USAGE } from '../server/cli.ts';
import { launch } from '../server/launch.ts';
import { quietBuild } from './site-build.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');

/** Newest modification time (ms) of any file under `path`; 0 when it does not exist. */
export function newestMtime(path: string): number {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Whether dist/ was built for the host's root (not with BASE_PATH for a static host's sub-path). */
function builtForRoot(): boolean {
  try {
    return (JSON.parse(readFileSync(join(dist, 'manifest.webmanifest'), 'utf8')) as { scope?: string }).scope === '/';
  } catch {
    return true; // no manifest to tell: judge by age alone
  }
}

/** Whether dist/ needs a build: missing, empty, built under a sub-path, or older than any source. */
export function needsBuild(): boolean {
  const built = existsSync(join(dist, 'index.html')) ? statSync(join(dist, 'index.html')).mtimeMs : 0;
  if (built === 0 || !builtForRoot()) return true;
  const sources = Math.max(...['src', 'content', 'public', 'astro.config.mjs'].map((p) => newestMtime(join(root, p))));
  return sources > built;
}

try {
  const options = parseCli(process.argv.slice(2), process.env);
  if (options.help) {
    console.log(USAGE);
  } else {
    if (needsBuild()) {
      // The lab server serves the site at its root, whatever BASE_PATH this shell has.
      const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
      delete env['BASE_PATH'];
      delete env['OUT_DIR'];
      const build = quietBuild('npx', ['astro', 'build'], { cwd: root, env, say: (l) => console.error(l) });
      if (!build.ok) {
        console.error(
          existsSync(dist) ? 'Serving the previous dist/.' : 'There is no dist/ yet: serving the API only.',
        );
      }
    }
    await launch({ ...options, staticDir: existsSync(dist) ? dist : null });
  }
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(exitCodeOf(e));
}

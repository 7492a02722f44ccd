/**
 * `npm run demo:fleet`: a fleet to look at in two minutes, all on this machine's loopback. Starts three simulated
 * lab servers (`--dcgm-names`, 4 GPUs each, a different scenario each), Debian's real Prometheus scraping them every
 * 2 s with the token (an `authorization:` block, as deploy/prometheus/prometheus.yml shows), and a reader lab
 * server with `--source prometheus:<url>` that serves the site; then prints the `/fleet/` URL. Ctrl-C (or SIGTERM)
 * stops every process it started and removes its temporary folder.
 *
 * Flags: --port <n> (the reader's port; default 0, a free one), --api-only (the reader serves the API without
 * building the site), --site <dir> (serve this built site as it is, without `npm start`'s build check; the
 * end-to-end test serves dist/ so).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { demoPrometheusConfig, DEMO_NODES, freePort, startChild, waitForGpus, type Child } from './demo-fleet-parts.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const startedMs = Date.now();
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'api-only': { type: 'boolean', default: false },
    site: { type: 'string' },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'saturate-demo-fleet-'));
const token = randomBytes(16).toString('hex');
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, token, { mode: 0o600 });
// Each lab server keeps its token under $XDG_CONFIG_HOME: this folder, never the learner's ~/.config.
const env = { ...process.env, XDG_CONFIG_HOME: dir, ASTRO_TELEMETRY_DISABLED: '1' };
const children: Child[] = [];
let stopping = false;

/** Stops every child (SIGTERM, then SIGKILL after 5 s), removes the folder, and exits with `code`. */
async function stopAll(code: number): Promise<never> {
  stopping = true;
  await Promise.all(children.map((c) => c.stop()));
  rmSync(dir, { recursive: true, force: true });
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (stopping) return;
    console.error(`\n${signal}: stopping the demo fleet…`);
    void stopAll(0);
  });
const onExit = (name: string) => (code: number | null) => {
  if (stopping) return;
  console.error(`${name} exited (${code}) before the demo was stopped: stopping the rest.`);
  void stopAll(1);
};

try {
  console.error('Starting three simulated GPU nodes, a Prometheus and a reader (the first start builds the site)…');
  const nodes = await Promise.all(
    DEMO_NODES.map(async (n) => {
      const child = await startChild(
        n.hostname,
        process.execPath,
        [
          'server/bin.mjs',
          ...['--port', '0', '--source', n.source, '--interval', '500', '--token-file', tokenFile],
          ...['--dcgm-names', '--dcgm-hostname', n.hostname],
        ],
        { cwd: root, env },
        onExit(n.hostname),
      );
      children.push(child);
      return { ...n, port: child.port };
    }),
  );
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(
    configFile,
    demoPrometheusConfig(
      nodes.map((n) => `127.0.0.1:${n.port}`),
      tokenFile,
    ),
  );
  const promPort = await freePort();
  const prometheus = await startChild(
    'prometheus',
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      '--log.level=warn',
    ],
    { cwd: dir, env, port: promPort },
    onExit('prometheus'),
  );
  children.push(prometheus);
  const promUrl = `http://127.0.0.1:${prometheus.port}`;
  // The reader refuses a Prometheus with no GPU yet: wait for the first scrape of every node.
  await waitForGpus(promUrl, nodes.length * 4, 60_000);
  const reader = await startChild(
    'reader',
    process.execPath,
    [
      ...(values['api-only']
        ? ['server/bin.mjs']
        : values.site
          ? ['server/bin.mjs', '--static', values.site]
          : ['scripts/start.mjs']),
      ...['--port', values.port!, '--source', `prometheus:${promUrl}`, '--interval', '2000'],
      ...['--token-file', tokenFile],
    ],
    { cwd: root, env },
    onExit('the reader lab server'),
  );
  children.push(reader);
  const s = ((Date.now() - startedMs) / 1000).toFixed(0);
  console.log(
    [
      '',
      `Demo fleet up in ${s} s: ${nodes.length} simulated lab servers (${nodes.length * 4} GPUs), scraped every 2 s.`,
      ...nodes.map((n) => `  ${n.hostname.padEnd(20)} http://127.0.0.1:${n.port}/metrics  (${n.source})`),
      `  ${'prometheus'.padEnd(20)} ${promUrl}  (config: ${configFile})`,
      '',
      `Open the fleet: http://127.0.0.1:${reader.port}/fleet/?token=${token}`,
      'Hours fill in over the first minutes (the page says how much data Prometheus has). Ctrl-C stops everything.',
    ].join('\n'),
  );
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  await stopAll(1);
}

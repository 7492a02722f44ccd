/**
 * A live simulated cluster: one lab server of 8 GPUs per scenario (in this process; `sim:<scenario>?gpus=8`, copies
 * of the scenario's job), each exposing dcgm-exporter's and node-exporter's series with --dcgm-names, scraped every
 * second by a real Prometheus. Then the fleet is read
 * back through a lab server started with --source prometheus:<url>, over HTTP, as the fleet page reads it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { parseCli } from '../../server/cli.ts';
import { launch, type Launched } from '../../server/launch.ts';
import { openPrometheusSource } from '../../server/fleet/source.ts';
import { createPrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { CLUSTER_CAUSES } from './cluster.ts';
import { startPrometheus, type RunningPrometheus, PROMETHEUS_TEST_LIMITS } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const TOKEN = 'fleet-live-token-0123456789';
const SCRAPE_S = 1;
const RUN_S = 40;
const GPUS_PER_SERVER = 8;
const servers: Launched[] = [];
let prom: RunningPrometheus;
let fleet: Launched;
let dir: string;

const quiet = { print: () => undefined, log: () => undefined, handleSignals: false } as const;

beforeAll(
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'saturate-live-'));
    const env = { XDG_CONFIG_HOME: dir };
    for (const scenario of Object.keys(CLUSTER_CAUSES)) {
      const o = parseCli(
        [
          '--port',
          '0',
          '--source',
          `sim:${scenario}?gpus=${GPUS_PER_SERVER}`,
          '--interval',
          '250',
          '--dcgm-names',
          '--dcgm-hostname',
          `sim-${scenario}`,
        ],
        { SATURATE_TOKEN: TOKEN },
      );
      servers.push(await launch(o, { ...quiet, env }));
    }
    const targets = servers.map((s) => `'127.0.0.1:${s.port}'`).join(', ');
    prom = await startPrometheus({
      config: `global:\n  scrape_interval: ${SCRAPE_S}s\nscrape_configs:\n  - job_name: lab\n    authorization:\n      credentials: ${TOKEN}\n    static_configs:\n      - targets: [${targets}]\n`,
    });
    await new Promise((r) => setTimeout(r, RUN_S * 1000 + prom.visibleAfterMs)); // what the engine shows only later
    const tokenFile = join(dir, 'fleet-token');
    writeFileSync(tokenFile, TOKEN);
    fleet = await launch(
      parseCli(['--port', '0', '--source', `prometheus:${prom.url}`, '--interval', '1000', '--token-file', tokenFile]),
      {
        ...quiet,
        env,
      },
    );
  },
  (RUN_S + 90) * 1000,
);

afterAll(async () => {
  await fleet?.stop();
  for (const s of servers) await s.stop();
  await prom?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a live simulated cluster scraped by Prometheus', () => {
  test('the fleet lab server lists every scraped GPU as a device, named with its host', async () => {
    const res = await fetch(`http://127.0.0.1:${fleet.port}/api/devices?token=${TOKEN}`);
    const body = (await res.json()) as { source: string; simulated: boolean; devices: { name: string }[] };
    expect(body.source).toBe(`prometheus:${prom.url}`);
    const perHost = new Map<string, number>();
    for (const d of body.devices) {
      const host = /\((sim-[a-z-]+), GPU \d+\)$/.exec(d.name)?.[1] ?? d.name;
      perHost.set(host, (perHost.get(host) ?? 0) + 1);
    }
    expect(Object.fromEntries(perHost)).toEqual(
      Object.fromEntries(Object.keys(CLUSTER_CAUSES).map((s) => [`sim-${s}`, GPUS_PER_SERVER])),
    );
  });

  test('/api/fleet: every GPU judged, ≥ 95% right, none confidently wrong', async () => {
    const res = await fetch(`http://127.0.0.1:${fleet.port}/api/fleet?window=1m&token=${TOKEN}`);
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      gpus: { hostname: string; verdict: { kind: string; confidence: string } }[];
    };
    expect(report.gpus).toHaveLength(Object.keys(CLUSTER_CAUSES).length * GPUS_PER_SERVER);
    const cause = (h: string) => CLUSTER_CAUSES[h.replace(/^sim-/, '')];
    const right = report.gpus.filter((g) => g.verdict.kind === cause(g.hostname));
    const confidentlyWrong = report.gpus.filter(
      (g) => g.verdict.kind !== cause(g.hostname) && g.verdict.kind !== 'cant-tell' && g.verdict.confidence === 'high',
    );
    expect(confidentlyWrong.map((g) => `${g.hostname}: ${g.verdict.kind}`)).toEqual([]);
    const wrong = report.gpus.filter((g) => g.verdict.kind !== cause(g.hostname));
    expect(
      right.length / report.gpus.length,
      wrong.map((g) => `${g.hostname}: ${g.verdict.kind}`).join('; '),
    ).toBeGreaterThanOrEqual(0.95);
  });

  test('the browser cannot point the server at another Prometheus, and a bad window is refused', async () => {
    const bad = await fetch(`http://127.0.0.1:${fleet.port}/api/fleet?window=9y&token=${TOKEN}`);
    expect(bad.status).toBe(422);
    const other = await fetch(
      `http://127.0.0.1:${fleet.port}/api/fleet?window=1m&url=http://169.254.169.254/&token=${TOKEN}`,
    );
    const text = await other.text();
    expect(text).toContain(prom.url.replace('http://', '')); // the report names the configured Prometheus only
    expect(text).not.toContain('169.254');
  });

  test('a node that goes down reads "no recent scrape" at the next refresh, never its last readings as now', async () => {
    const src = await openPrometheusSource({ url: prom.url, refreshS: SCRAPE_S });
    try {
      const scenario = Object.keys(CLUSTER_CAUSES)[1]!;
      const [gone] = servers.splice(1, 1);
      const instance = `127.0.0.1:${gone!.port}`;
      await gone!.stop();
      // What Prometheus does next: its scrape of the node fails (up is 0) and marks the node's series stale, then.
      const client = createPrometheusClient({ url: prom.url });
      const upAt = async (timeS: number) => (await client.query(`up{instance="${instance}"}`, timeS))[0]?.value;
      const deadline = Date.now() + 30_000 + prom.visibleAfterMs;
      while ((await upAt(Math.floor(Date.now() / 1000))) !== 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      await src.refresh();
      const devices = src.devices();
      const read = src.read(Date.now()).gpus;
      const onGone = devices.flatMap((d, i) => (d.name.includes(`(sim-${scenario},`) ? [read[i]!] : []));
      expect(onGone).toHaveLength(GPUS_PER_SERVER);
      for (const g of onGone) {
        expect(g.gpuUtilPct).toBeNull();
        expect(g.error).toMatch(/no recent scrape from sim-/);
      }
      const others = read.filter((g) => !onGone.includes(g));
      expect(others.length).toBeGreaterThan(0);
      for (const g of others) expect(g.error).toBeNull();
    } finally {
      src.close();
    }
  });

  test('simulated series say so on every line', async () => {
    const res = await fetch(`http://127.0.0.1:${servers[0]!.port}/metrics?token=${TOKEN}`);
    const lines = (await res.text()).split('\n').filter((l) => l.startsWith('DCGM_FI_') || l.startsWith('node_'));
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines) expect(l).toContain('simulated="true"');
  });
});

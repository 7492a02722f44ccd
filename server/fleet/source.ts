/**
 * `--source prometheus:<url>`: the lab server's GPUs are a fleet's, read from Prometheus. Every GPU that
 * matches the selector becomes one device of the stream (named with its host), refreshed from the newest
 * scrape every `refreshS` seconds; the lab console's charts and GPU picker then show any GPU of the fleet
 * live, and `/api/fleet` runs the waste audit on the same Prometheus.
 *
 * Lifecycle: `openPrometheusSource()` reads the fleet once (so the device list is known before the server
 * listens), `start()` begins the refresh timer, `close()` stops it. A GPU that stops reporting keeps its
 * place with an error; one that appears later joins on the next restart (the device list is fixed).
 */
import type { DeviceInfo, GpuSample } from '../../src/protocol/metrics.ts';
import { emptyGpuSample } from '../../src/protocol/metrics.ts';
import { fleetDeviceName } from '../../src/lib/fleet-view.ts';
import { audit, type AuditReport } from './audit.ts';
import { newestFleet, type FleetGpu } from './collect.ts';
import { terminalText } from './plain-text.ts';
import { createPrometheusClient, type PrometheusClient, type PrometheusOptions } from './prometheus-api.ts';

export interface PrometheusSourceOptions extends PrometheusOptions {
  selector?: string | undefined;
  /** Seconds between refreshes (dcgm-exporter's own interval is 30 s by default). */
  refreshS?: number;
  /** The clock, ms since epoch (tests pass a fixed one). */
  now?: () => number;
}

export interface PrometheusSource {
  readonly id: string;
  readonly simulated: false;
  readonly reason: null;
  devices(): DeviceInfo[];
  read(nowMs: number): { gpus: GpuSample[]; host: null; throughput: null };
  /** Reads the newest scrape now (the timer calls it; tests call it directly). */
  refresh(): Promise<void>;
  /** The waste audit over `windowS`, cached for `refreshS` per window (the newest FLEET_WINDOWS_KEPT windows). */
  fleet(windowS: number, pricePerGpuHour: number | null): Promise<AuditReport>;
  start(): void;
  close(): void;
  /** The fleet GPU behind each device index. */
  readonly gpus: readonly FleetGpu[];
  /** How many windows' audits are cached now (at most FLEET_WINDOWS_KEPT). */
  readonly cachedWindows: number;
}

/** How many windows' audits `fleet()` keeps: each `window=` a browser asks for costs eight queries once. */
export const FLEET_WINDOWS_KEPT = 4;

/** Connects, reads the fleet once and returns the source; throws a PrometheusError or "nothing matched". */
export async function openPrometheusSource(opts: PrometheusSourceOptions): Promise<PrometheusSource> {
  const client: PrometheusClient = createPrometheusClient({
    flags: { selector: '--prometheus-selector', timeout: '--prometheus-query-timeout' },
    ...opts,
  });
  const now = opts.now ?? Date.now;
  const refreshS = Math.max(0.1, opts.refreshS ?? 15);
  // The fleet page's verdict now reads the last ten refreshes (at least 20 s): recent enough to follow a change.
  const lookbackS = Math.max(20, Math.round(refreshS * 10));
  // Each refresh reads the newest scrape alone (collect.ts newestFleet): one value a series, not the last ten
  // refreshes of every series, the same readings ten times over, every refresh, for as long as the lab server runs.
  // Reads end at the second now is in, not the one before: a scrape earlier in this second (a node scraped for the
  // first time just before a newcomer opens /fleet/) is read now, not left out of a report cached for 5 s.
  const nowS = () => Math.ceil(now() / 1000);
  const read = () => newestFleet(client, { selector: opts.selector, atS: nowS() });
  const hosts = await read();
  const gpus: FleetGpu[] = hosts.flatMap((h) => h.gpus);
  if (!gpus.length)
    throw new Error(
      `no GPU matched${opts.selector ? ` ${opts.selector}` : ''} in ${client.where}'s newest scrapes (its lookback, 5 minutes by default): check the selector, and that Prometheus scrapes dcgm-exporter`,
    );
  const indexOf = new Map(gpus.map((g, i) => [g.key, i]));
  const label = (g: FleetGpu) => fleetDeviceName(g); // the fleet page links to a GPU by this name
  const devices: DeviceInfo[] = gpus.map((g, i) => ({
    index: i,
    name: label(g),
    uuid: g.uuid ?? g.key,
    memTotalBytes: null,
    smClockMaxMhz: null,
    memClockMaxMhz: null,
    gpmSupported: false,
    ...(g.simulated ? { simulated: true } : {}),
  }));
  let latest: GpuSample[] = [];
  let lastError: string | null = null;
  const store = (h: Awaited<ReturnType<typeof read>>) => {
    const next = gpus.map((g, i) => {
      const gone = emptyGpuSample({ index: i, uuid: g.uuid ?? g.key, name: label(g) });
      gone.error =
        lastError ?? `no recent scrape from ${g.hostname} (none in Prometheus's lookback, or its target is down)`;
      return gone;
    });
    for (const host of h) {
      const last = host.messages.at(-1);
      if (!last) continue;
      host.gpus.forEach((g, pos) => {
        const i = indexOf.get(g.key);
        const s = last.gpus[pos];
        if (i === undefined || !s) return;
        next[i] = { ...s, index: i, name: label(g) };
      });
    }
    latest = next;
  };
  store(hosts);
  // Least recently used first: a hit moves to the end, and past FLEET_WINDOWS_KEPT the first goes.
  const audits = new Map<string, { atMs: number; report: Promise<AuditReport> }>();
  let timer: ReturnType<typeof setInterval> | null = null;
  /** The refresh in flight, if any: a timer tick while it runs joins it instead of starting another. */
  let refreshing: Promise<void> | null = null;
  const source: PrometheusSource = {
    id: `prometheus:${client.where}`,
    simulated: false,
    reason: null,
    gpus,
    get cachedWindows() {
      return audits.size;
    },
    devices: () => devices,
    read: () => ({ gpus: latest, host: null, throughput: null }),
    refresh() {
      refreshing ??= (async () => {
        try {
          const h = await read();
          lastError = null;
          store(h);
        } catch (e) {
          lastError = `Prometheus: ${terminalText((e as Error).message, 500)}`;
          store([]);
        } finally {
          refreshing = null;
        }
      })();
      return refreshing;
    },
    fleet(windowS, price) {
      const key = `${windowS}|${price}`;
      const hit = audits.get(key);
      if (hit && now() - hit.atMs < Math.max(5, refreshS) * 1000) {
        audits.delete(key);
        audits.set(key, hit);
        return hit.report;
      }
      audits.delete(key);
      const report = audit(client, {
        windowS,
        endS: nowS(),
        selector: opts.selector,
        pricePerGpuHour: price,
        liveS: lookbackS,
        liveStepS: Math.max(1, refreshS),
      });
      const entry = { atMs: now(), report };
      audits.set(key, entry);
      while (audits.size > FLEET_WINDOWS_KEPT) audits.delete(audits.keys().next().value as string);
      report.catch(() => {
        if (audits.get(key) === entry) audits.delete(key);
      });
      return report;
    },
    start() {
      timer ??= setInterval(() => void source.refresh(), refreshS * 1000);
      timer.unref?.();
    },
    close() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
  return source;
}

/**
 * The independent cluster, backfilled once: `backfilledCluster()` plans it (plan.ts), writes and backfills it with
 * promtool (write.ts) into a folder kept under the system's temp folder, named by a hash of the generator's own
 * source and its parameters. A later run with the same generator and parameters reuses the blocks (the test and
 * the bench share them); any change to the generator writes them anew. Callers copy the blocks into their own
 * Prometheus (prometheus-harness.ts `blocksDir`), so the kept folder is never written to.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planCluster, type PlannedHost } from './plan.ts';
import { backfillCluster, type BackfillTimings } from './write.ts';

/** The end of the window every run of the independent cluster uses (a 2-hour boundary, as promtool's blocks). */
export const INDEPENDENT_END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
/** dcgm-exporter's scrape interval in the cluster. */
export const SCRAPE_S = 30;

export interface ClusterOptions {
  gpus: number;
  windowS: number;
  endS?: number;
  seed?: number;
}

export interface BackfilledCluster {
  hosts: PlannedHost[];
  startS: number;
  endS: number;
  /** The Prometheus data folder holding the blocks (read-only: copy it). */
  blocksDir: string;
  /** How long writing and backfilling took, or null when the blocks were kept from an earlier run. */
  timings: BackfillTimings | null;
}

const SOURCES = ['ranges.ts', 'plan.ts', 'readings.ts', 'write.ts'];

function cacheKey(o: Required<ClusterOptions>): string {
  const h = createHash('sha256');
  for (const f of SOURCES) h.update(readFileSync(new URL(`./${f}`, import.meta.url)));
  h.update(JSON.stringify(o));
  return h.digest('hex').slice(0, 16);
}

/** The cluster for `opts`, backfilled (or kept from a run with the same generator); `log` hears the timings. */
export async function backfilledCluster(
  opts: ClusterOptions,
  log: (s: string) => void = () => {},
): Promise<BackfilledCluster> {
  const o = { endS: INDEPENDENT_END_S, seed: 26, ...opts };
  const hosts = planCluster(o.gpus, o.windowS, o.seed);
  const startS = o.endS - o.windowS;
  const root = join(tmpdir(), 'saturate-independent-cluster');
  const blocksDir = join(root, cacheKey(o));
  if (existsSync(join(blocksDir, 'done.json'))) {
    log(`independent cluster: ${o.gpus} GPUs over ${o.windowS / 3600} h kept from an earlier run (${blocksDir})`);
    return { hosts, startS, endS: o.endS, blocksDir, timings: null };
  }
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(join(root, 'work-'));
  try {
    const data = join(work, 'data');
    mkdirSync(data);
    const timings = await backfillCluster(hosts, startS, o.endS, SCRAPE_S, work, data);
    writeFileSync(join(data, 'done.json'), JSON.stringify({ ...o, timings }));
    rmSync(blocksDir, { recursive: true, force: true });
    renameSync(data, blocksDir);
    log(
      `independent cluster: ${o.gpus} GPUs over ${o.windowS / 3600} h, ${(timings.samples / 1e6).toFixed(1)} M samples: ` +
        `writing ${timings.generateS.toFixed(0)} s, promtool ${timings.backfillS.toFixed(0)} s beside it, ${timings.totalS.toFixed(0)} s in all`,
    );
    return { hosts, startS, endS: o.endS, blocksDir, timings };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The independent cluster as OpenMetrics, backfilled into a Prometheus data folder with
 * `promtool tsdb create-blocks-from openmetrics`. promtool reads its whole input once per 2-hour block, so the
 * cluster is written as one file per 2-hour block (each read twice, not 13 times for a day) and each file goes to
 * promtool while the next is written; each is deleted once backfilled.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { EXPORTS, modelOf, prng, stateAt, type PlannedHost } from './plan.ts';
import { hostCpu, idleDraws, levelsOf, scrape, type Levels, type Scrape } from './readings.ts';
import { CORES, type TruthState } from './ranges.ts';

const BLOCK_S = 7200;

/** dcgm-exporter series: name, the Scrape field, who sends it. */
export const SERIES: { name: string; field: keyof Scrape; who: 'all' | 'prof' | 'v4' | 'v3' | 'limit' }[] = [
  { name: 'DCGM_FI_DEV_GPU_UTIL', field: 'utilPct', who: 'all' },
  { name: 'DCGM_FI_DEV_MEM_COPY_UTIL', field: 'copyPct', who: 'all' },
  { name: 'DCGM_FI_DEV_FB_USED', field: 'fbUsedMiB', who: 'all' },
  { name: 'DCGM_FI_DEV_FB_FREE', field: 'fbFreeMiB', who: 'all' },
  { name: 'DCGM_FI_DEV_POWER_USAGE', field: 'powerW', who: 'all' },
  { name: 'DCGM_FI_DEV_SM_CLOCK', field: 'smClockMHz', who: 'all' },
  { name: 'DCGM_FI_DEV_GPU_TEMP', field: 'tempC', who: 'all' },
  { name: 'DCGM_FI_DEV_MEMORY_TEMP', field: 'memTempC', who: 'all' },
  { name: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', field: 'grActive', who: 'prof' },
  { name: 'DCGM_FI_PROF_SM_ACTIVE', field: 'smActive', who: 'prof' },
  { name: 'DCGM_FI_PROF_SM_OCCUPANCY', field: 'smOccupancy', who: 'prof' },
  { name: 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', field: 'tensorActive', who: 'prof' },
  { name: 'DCGM_FI_PROF_DRAM_ACTIVE', field: 'dramActive', who: 'prof' },
  { name: 'DCGM_FI_PROF_PCIE_TX_BYTES', field: 'pcieTxBps', who: 'prof' },
  { name: 'DCGM_FI_PROF_PCIE_RX_BYTES', field: 'pcieRxBps', who: 'prof' },
  { name: 'DCGM_FI_DEV_POWER_MGMT_LIMIT', field: 'powerLimitW', who: 'limit' },
  { name: 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS', field: 'reasonMask', who: 'v4' },
  { name: 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS', field: 'reasonMask', who: 'v3' },
];

export function sends(host: PlannedHost, who: (typeof SERIES)[number]['who']): boolean {
  const e = EXPORTS[host.flavour];
  if (who === 'all') return true;
  if (who === 'prof') return e.profiling;
  if (who === 'limit') return e.powerLimit;
  return e.reasons === who;
}

/** The labels of a GPU's series as Prometheus stores them after the scrape (ServiceMonitor or static). */
export function gpuLabels(h: PlannedHost, gi: number): string {
  const g = h.gpus[gi]!;
  const host = h.flavour === 'v4-prof' ? 'hostname' : 'Hostname';
  const base = `gpu="${gi}",UUID="${g.uuid}",device="nvidia${gi}",modelName="${modelOf(h).modelName}",${host}="${h.hostname}"`;
  if (h.kubernetes) {
    const pod = `nvidia-dcgm-exporter-${h.hostname.slice(-4)}x`;
    const scrape = `container="nvidia-dcgm-exporter",endpoint="gpu-metrics",instance="${h.ip}:9400",job="nvidia-dcgm-exporter",namespace="gpu-operator",pod="${pod}",service="nvidia-dcgm-exporter"`;
    const w = g.owner && 'pod' in g.owner ? g.owner : null;
    const workload = w
      ? `,exported_container="${w.container}",exported_namespace="${w.namespace}",exported_pod="${w.pod}"`
      : '';
    return `{${base},${scrape}${workload}}`;
  }
  const job = g.owner && 'hpcJob' in g.owner ? `,hpc_job="${g.owner.hpcJob}"` : '';
  return `{${base},instance="${h.hostname}:9400",job="dcgm"${job}}`;
}

/** A host's memory, bytes (node_memory_MemTotal_bytes). */
const MEM_TOTAL = 2_164_173_746_176;

/** node-exporter's load and memory gauges, from the host's busy cores at a scrape (rounded to hundredths). */
export const NODE_GAUGES: readonly [string, (busyCores: number) => number][] = [
  ['node_load1', (b) => b],
  ['node_load5', (b) => b],
  ['node_load15', (b) => b],
  ['node_memory_MemTotal_bytes', () => MEM_TOTAL],
  ['node_memory_MemAvailable_bytes', (b) => MEM_TOTAL * (0.9 - b / 80)],
];

/** The node-exporter target of a host. */
export const nodeInstance = (h: PlannedHost): string => `${h.kubernetes ? h.ip : h.hostname}:9100`;
export const nodeLabels = (h: PlannedHost): string =>
  `instance="${nodeInstance(h)}",job="${h.kubernetes ? 'node-exporter' : 'node'}"`;

/** A file written through one large buffer (latin1: every label and value here is ASCII). */
function bufferedFile(file: string): { line(s: string): void; close(): void } {
  const fd = openSync(file, 'w');
  const buf = Buffer.allocUnsafe(8 << 20);
  let pos = 0;
  const flush = () => {
    writeSync(fd, buf, 0, pos);
    pos = 0;
  };
  return {
    line(s) {
      if (pos + s.length > buf.length) flush();
      pos += buf.write(s, pos, 'latin1');
    },
    close() {
      flush();
      closeSync(fd);
    },
  };
}

/** A cluster written scrape by scrape: the state that runs across files (noise streams, counters). */
export interface ClusterWriter {
  /** Writes the scrapes at `fromS` ≤ t < `toS` (unix seconds, every `stepS` from the window's start) to `file`. */
  writeRange(file: string, fromS: number, toS: number): number;
}

/**
 * A writer of `hosts` from `startS` every `stepS`. `timestampsMs`: Prometheus text format's millisecond timestamps
 * (VictoriaMetrics' /api/v1/import/prometheus) instead of OpenMetrics' seconds.
 */
export function clusterWriter(
  hosts: PlannedHost[],
  startS: number,
  stepS: number,
  { timestampsMs = false }: { timestampsMs?: boolean } = {},
): ClusterWriter {
  const ts = (t: number) => (timestampsMs ? `${t}000` : `${t}`);
  const gpuState = hosts.map((h) => {
    const model = modelOf(h);
    const idle = idleDraws(h, model);
    return h.gpus.map((g, gi) => ({
      levels: levelsOf(g) as Map<TruthState, Levels>,
      rand: prng(g.seed),
      idleW: idle[gi]!,
      energyMj: 3e9 + prng(g.seed ^ 0xe)() * 4e10, // since boot, days before the window
    }));
  });
  const hostRand = hosts.map((h, i) => prng(0xc0 + i * 7 + h.gpus.length));
  const idleCpuS = hosts.map(() => Array.from({ length: CORES }, (_, c) => 1e6 + c * 1000));
  const labelCache = hosts.map((h) => h.gpus.map((_, gi) => gpuLabels(h, gi)));
  return {
    writeRange(file, fromS, toS) {
      const times: number[] = [];
      for (let k = Math.ceil((fromS - startS) / stepS); startS + k * stepS < toS; k++) times.push(startS + k * stepS);
      // Every GPU's scrapes for the range, then the families one after another (OpenMetrics keeps each contiguous).
      const scrapes = hosts.map((h, hi) =>
        h.gpus.map((g, gi) => {
          const s = gpuState[hi]![gi]!;
          return times.map((t) => {
            const state = stateAt(g, t - startS);
            const r = scrape(state, s.levels.get(state)!, modelOf(h), s.idleW, h.powerCapShare, s.rand);
            s.energyMj += r.powerW * stepS * 1000;
            return { r, energy: s.energyMj };
          });
        }),
      );
      const cpu = hosts.map((h, hi) =>
        times.map((t) => {
          const busy = hostCpu(
            h.gpus.map((g) => stateAt(g, t - startS)),
            hostRand[hi]!,
          );
          return busy.map((b, c) => (idleCpuS[hi]![c]! += ((100 - b) / 100) * stepS));
        }),
      );
      const out = bufferedFile(file);
      const line = out.line;
      let n = 0;
      for (const s of SERIES) {
        line(`# TYPE ${s.name} gauge\n`);
        hosts.forEach((h, hi) => {
          if (!sends(h, s.who)) return;
          h.gpus.forEach((_, gi) => {
            const prefix = `${s.name}${labelCache[hi]![gi]} `;
            const rows = scrapes[hi]![gi]!;
            times.forEach((t, ti) => {
              line(`${prefix}${rows[ti]!.r[s.field]} ${ts(t)}\n`);
              n++;
            });
          });
        });
      }
      // Energy is a counter in dcgm-exporter; written as a gauge (an OpenMetrics counter must end in _total).
      line('# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION gauge\n');
      hosts.forEach((h, hi) =>
        h.gpus.forEach((_, gi) => {
          const prefix = `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION${labelCache[hi]![gi]} `;
          times.forEach((t, ti) => {
            line(`${prefix}${Math.round(scrapes[hi]![gi]![ti]!.energy)} ${ts(t)}\n`);
            n++;
          });
        }),
      );
      line('# TYPE node_cpu_seconds_total gauge\n');
      hosts.forEach((h, hi) => {
        for (let c = 0; c < CORES; c++) {
          const prefix = `node_cpu_seconds_total{cpu="${c}",mode="idle",${nodeLabels(h)}} `;
          times.forEach((t, ti) => {
            line(`${prefix}${cpu[hi]![ti]![c]!.toFixed(2)} ${ts(t)}\n`);
            n++;
          });
        }
      });
      for (const [name, value] of NODE_GAUGES) {
        line(`# TYPE ${name} gauge\n`);
        hosts.forEach((h, hi) => {
          const prefix = `${name}{${nodeLabels(h)}} `;
          times.forEach((t, ti) => {
            const row = cpu[hi]![ti]!;
            const busyCores = ti === 0 ? 0 : row.reduce((a, v, c) => a + (1 - (v - cpu[hi]![ti - 1]![c]!) / stepS), 0);
            line(`${prefix}${Math.round(value(busyCores) * 100) / 100} ${ts(t)}\n`);
            n++;
          });
        });
      }
      line('# TYPE node_uname_info gauge\n');
      hosts.forEach((h) => {
        const prefix = `node_uname_info{nodename="${h.hostname}",${nodeLabels(h)}} 1 `;
        times.forEach((t) => {
          line(`${prefix}${ts(t)}\n`);
          n++;
        });
      });
      if (!timestampsMs) line('# EOF\n');
      out.close();
      return n;
    },
  };
}

/** Runs promtool on `file` into `dataDir`; rejects with its output when it fails. */
export function promtoolBackfill(file: string, dataDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', file, dataDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    p.once('error', reject);
    p.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`promtool could not backfill ${file}: ${err}`)),
    );
  });
}

export interface BackfillTimings {
  samples: number;
  /** Seconds writing OpenMetrics (this process). */
  generateS: number;
  /** Seconds from the first file handed to promtool to the last block written, beside the writing. */
  backfillS: number;
  /** Wall seconds in all. */
  totalS: number;
}

/**
 * Writes the cluster from `startS` to `endS` (inclusive) every `stepS` into `dataDir` as Prometheus blocks, one
 * 2-hour file at a time in `workDir`, promtool backfilling one file while the next is written (two at most).
 */
export async function backfillCluster(
  hosts: PlannedHost[],
  startS: number,
  endS: number,
  stepS: number,
  workDir: string,
  dataDir: string,
): Promise<BackfillTimings> {
  const t0 = performance.now();
  const w = clusterWriter(hosts, startS, stepS);
  let samples = 0;
  let generateMs = 0;
  let firstPromtool = 0;
  const inFlight: Promise<void>[] = [];
  for (let from = Math.floor(startS / BLOCK_S) * BLOCK_S; from <= endS; from += BLOCK_S) {
    const file = join(workDir, `block-${from}.om`);
    const g = performance.now();
    samples += w.writeRange(file, Math.max(from, startS), Math.min(from + BLOCK_S, endS + 1));
    generateMs += performance.now() - g;
    if (!firstPromtool) firstPromtool = performance.now();
    const job = promtoolBackfill(file, dataDir).finally(() => rmSync(file, { force: true }));
    job.catch(() => {}); // awaited below; this only keeps a failure from reading as unhandled meanwhile
    inFlight.push(job);
    if (inFlight.length >= 2) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const end = performance.now();
  return {
    samples,
    generateS: generateMs / 1000,
    backfillS: (end - firstPromtool) / 1000,
    totalS: (end - t0) / 1000,
  };
}

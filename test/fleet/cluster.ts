/**
 * A simulated GPU cluster written as dcgm-exporter and node-exporter series (OpenMetrics with timestamps),
 * for `promtool tsdb create-blocks-from openmetrics`. Each host runs one of the simulator's scenarios on
 * 8 GPUs: single-GPU scenarios run 8 independent copies (one seed per GPU), multi-GPU ones as many
 * copies of all their ranks as fill 8. Values come from the same
 * simulator and the same `dcgmValues` table as the lab server's `--dcgm-names` exporter.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { sampleAt, SCENARIOS } from '../../src/lib/sim/index.ts';
import { dcgmLabelText, dcgmValues, DCGM_NAMES_BEFORE_4, DCGM_SERIES } from '../../src/protocol/dcgm.ts';
import type { GpuSample, HostSample } from '../../src/protocol/metrics.ts';
import type { BottleneckKind } from '../../src/lib/diagnose/index.ts';

export interface SimHost {
  hostname: string;
  /** The scenario per period: `[{ fromMs, scenario, knobs }]`, the first starting at the cluster's start. */
  phases: { fromMs: number; scenario: string; knobs?: Record<string, number> }[];
  /** Owner labels on its GPUs' series (e.g. `{ pod: 'train-0', namespace: 'research' }`). */
  labels?: Record<string, string>;
  /** Drop profiling series (a consumer GPU, or DCP off). */
  noProfiling?: boolean;
  /** Stop reporting at this time (an exporter that died). */
  untilMs?: number;
  /** No node-exporter on this host (no host CPU). */
  noNodeExporter?: boolean;
  /** No clock event mask under either name (left out of dcgm-exporter's counters CSV). */
  noMask?: boolean;
  /** dcgm-exporter before 4.0: DCGM_FI_DEV_CLOCK_THROTTLE_REASONS for the clock event mask, `Hostname` for the host. */
  exporter3x?: boolean;
}

export const GPUS_PER_HOST = 8;

/** The cause each simulator scenario stands for (its scenario id → the diagnosis kind), at default knobs. */
export const CLUSTER_CAUSES: Record<string, BottleneckKind> = {
  idle: 'idle-allocated', // the idle scenario holds its memory until its knob frees it
  'data-starved': 'data-starvation',
  'small-kernels': 'small-kernels',
  'memory-bound': 'memory-bound',
  'compute-bound': 'compute-bound',
  throttled: 'throttled',
  'nccl-hang': 'communication-hang',
  straggler: 'straggler',
};

/** One host per scenario, named `sim-<scenario>`. */
export function scenarioCluster(): SimHost[] {
  return Object.keys(CLUSTER_CAUSES).map((scenario) => ({
    hostname: `sim-${scenario}`,
    phases: [{ fromMs: 0, scenario }],
    labels: { namespace: 'sim', pod: scenario },
  }));
}

/** The 8 GPU samples and the host sample of `host` at `tMs` (ms since the cluster's start). */
export function hostFrame(host: SimHost, tMs: number): { gpus: GpuSample[]; host: HostSample } {
  const phase = [...host.phases].reverse().find((p) => p.fromMs <= tMs) ?? host.phases[0]!;
  const def = SCENARIOS.find((s) => s.id === phase.scenario);
  if (!def) throw new Error(`unknown scenario ${phase.scenario}`);
  const local = tMs - phase.fromMs;
  // Enough copies of the scenario's own GPUs (1 for single-GPU scenarios, all ranks for multi-GPU ones) to fill 8.
  const copies = Math.ceil(GPUS_PER_HOST / def.gpuCount);
  const frames = Array.from({ length: copies }, (_, i) =>
    sampleAt(phase.scenario, local, `${host.hostname}/${i}`, phase.knobs),
  );
  const gpus = frames
    .flatMap((f) => f.gpus)
    .slice(0, GPUS_PER_HOST)
    .map((g, i) => ({ ...g, index: i }));
  return { gpus, host: frames[0]!.host };
}

/**
 * Writes the cluster from `startMs` to `endMs` every `stepMs` as OpenMetrics to `file` (each metric family
 * contiguous, as OpenMetrics requires; timestamps in seconds). Returns the number of samples written.
 */
export async function writeClusterOpenMetrics(
  file: string,
  hosts: SimHost[],
  startMs: number,
  endMs: number,
  stepMs: number,
): Promise<number> {
  const out = createWriteStream(file);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  // Frames once; then write family by family.
  const times: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) times.push(t);
  const frames = hosts.map((h) =>
    times.map((t) => (h.untilMs !== undefined && t > h.untilMs ? null : hostFrame(h, t - startMs))),
  );
  let n = 0;
  const energy = hosts.map(() => new Array<number>(GPUS_PER_HOST).fill(0));
  const values = frames.map((row, hi) =>
    row.map((f) =>
      f
        ? f.gpus.map((g, gi) => {
            energy[hi]![gi]! += (g.powerWatts ?? 0) * stepMs; // W × ms = mJ
            const v = dcgmValues(g, energy[hi]![gi]!);
            if (hosts[hi]!.noProfiling) for (const s of DCGM_SERIES) if (s.profiling) v.delete(s.name);
            if (hosts[hi]!.noMask) v.delete('DCGM_FI_DEV_CLOCKS_EVENT_REASONS');
            return v;
          })
        : null,
    ),
  );
  // A family per name: 4.x names for the hosts that run 4.x, then the 3.x name of a renamed series for the others.
  const families = DCGM_SERIES.flatMap((s) => [
    { name: s.name, source: s.name, help: s.help, old: false },
    ...(DCGM_NAMES_BEFORE_4[s.name]
      ? [{ name: DCGM_NAMES_BEFORE_4[s.name]!, source: s.name, help: s.help, old: true }]
      : []),
  ]);
  for (const s of families) {
    // Every family as a gauge: an OpenMetrics counter must be named `…_total`, and dcgm-exporter's energy
    // counter is not. The stored samples are the same; only the metadata differs.
    await write(`# TYPE ${s.name} gauge\n# HELP ${s.name} ${s.help}\n`);
    for (const [hi, h] of hosts.entries())
      for (let gi = 0; gi < GPUS_PER_HOST; gi++) {
        const first = frames[hi]!.find((f) => f !== null);
        const renamed = Boolean(h.exporter3x && DCGM_NAMES_BEFORE_4[s.source]);
        if (!first || s.old !== renamed) continue;
        const g = first.gpus[gi]!;
        const labels = dcgmLabelText({
          gpu: gi,
          uuid: `GPU-${h.hostname}-${gi}`,
          modelName: g.name,
          hostname: h.hostname,
          extra: { instance: `${h.hostname}:9400`, job: 'dcgm', ...h.labels },
        });
        const text = h.exporter3x ? labels.replace(',hostname=', ',Hostname=') : labels;
        for (const [ti, t] of times.entries()) {
          const v = values[hi]![ti]?.[gi]?.get(s.source);
          if (v === undefined) continue;
          await write(`${s.name}${text} ${v} ${t / 1000}\n`);
          n++;
        }
      }
  }
  // node-exporter beside dcgm-exporter: per-core CPU seconds, load, memory, and the host name.
  const node = (h: SimHost) => `instance="${h.hostname}:9100",job="node"`;
  const cpuSeconds = frames.map((row) => {
    const acc: number[] = [];
    return row.map((f) =>
      f
        ? f.host.perCorePct.map((pct, c) => {
            acc[c] = (acc[c] ?? 0) + ((100 - pct) / 100) * (stepMs / 1000);
            return acc[c]!;
          })
        : null,
    );
  });
  await write('# TYPE node_cpu_seconds_total gauge\n');
  for (const [hi, h] of hosts.entries())
    for (const [ti, t] of times.entries()) {
      const idle = cpuSeconds[hi]![ti];
      if (!idle || h.noNodeExporter) continue;
      for (const [c, v] of idle.entries()) {
        await write(`node_cpu_seconds_total{cpu="${c}",mode="idle",${node(h)}} ${v} ${t / 1000}\n`);
        n++;
      }
    }
  const gauges: [string, (f: { host: HostSample }) => number][] = [
    ['node_load1', (f) => f.host.load.avg1],
    ['node_load5', (f) => f.host.load.avg5],
    ['node_load15', (f) => f.host.load.avg15],
    ['node_memory_MemTotal_bytes', (f) => f.host.mem.totalBytes],
    ['node_memory_MemAvailable_bytes', (f) => f.host.mem.availableBytes],
  ];
  for (const [name, get] of gauges) {
    await write(`# TYPE ${name} gauge\n`);
    for (const [hi, h] of hosts.entries())
      for (const [ti, t] of times.entries()) {
        const f = frames[hi]![ti];
        if (!f || h.noNodeExporter) continue;
        await write(`${name}{${node(h)}} ${get(f)} ${t / 1000}\n`);
        n++;
      }
  }
  await write('# TYPE node_uname_info gauge\n');
  for (const [hi, h] of hosts.entries())
    for (const [ti, t] of times.entries()) {
      if (!frames[hi]![ti] || h.noNodeExporter) continue;
      await write(`node_uname_info{nodename="${h.hostname}",${node(h)}} 1 ${t / 1000}\n`);
      n++;
    }
  await write('# EOF\n');
  out.end();
  await once(out, 'finish');
  return n;
}

/**
 * Reads a fleet's GPUs from the Prometheus that already scrapes dcgm-exporter (and node-exporter), and
 * turns what it finds into the lab server's own `StreamMessage`s, one list per host, so that the same
 * diagnosis engine reads a fleet and a single machine. A series the exporter does not send is `null` with
 * the reason, never 0.
 *
 * Queries are batched by host (batches.ts): per batch of hosts one range query for every dcgm-exporter series (a
 * `__name__` regex); the host side (host-samples.ts) likewise.
 */
import type { GpuSample, HostSample, StreamMessage } from '../../src/protocol/metrics.ts';
import { hostSamplesOver, pointMap, timeline } from './host-samples.ts';
import {
  DCGM_NAMES_BEFORE_4,
  DCGM_SERIES,
  OWNER_LABELS,
  labelOf,
  type DcgmSampleField,
} from '../../src/protocol/dcgm.ts';
import { mergeOwners, ownerOfLabels, targetsThatSetPod, type GpuOwner } from './owner.ts';
import { emptyGpuSample } from '../../src/protocol/metrics.ts';
import type { PrometheusClient, RangeSeries } from './prometheus-api.ts';
import { readClockEventMask, readDcgm, readShare } from './readings.ts';
import { readInBatches, targetBatches, withBatch, type Batch, type OnBatch } from './batches.ts';

/** Who a GPU belongs to and where it is. */
export interface FleetGpu {
  /** `instance|gpu|uuid` (gpuKeyOf): stable for the life of the GPU. */
  key: string;
  instance: string;
  hostname: string;
  gpu: number;
  uuid: string | null;
  model: string;
  /** Owner labels found on its series (pod, namespace, container, job), normalised (owner.ts: `exported_pod` first). */
  owner: GpuOwner;
  /** Its series carry `simulated="true"` (a lab server's simulated GPU behind `--dcgm-names`), not real hardware. */
  simulated: boolean;
}

/** One host's GPUs and the messages built from its series. */
export interface FleetHost {
  hostname: string;
  gpus: FleetGpu[];
  messages: StreamMessage[];
  /** For averaged segments: per message, per GPU (position), the share of scrapes each clock event reason was active. */
  reasonShares?: Map<number, Record<string, number>>[];
  /** For averaged segments: per message, per GPU (position), how GPU-Util spread over the segment's scrapes. */
  utilSpreads?: Map<number, UtilSpread>[];
  /**
   * Per message, per GPU (position): the first corrupt reading (readings.ts: NaN, a mask out of range…) with
   * its reason. Such a GPU is "can't tell" at that time; the other GPUs are not affected.
   */
  corrupt: Map<number, string>[];
}

/** Series named `reason:<NvmlName>` carry the share of scrapes a clock event reason was active. */
export const REASON_PREFIX = 'reason:';

/**
 * A series named `mask:minutes` carries how many minutes of a run of segments the clock event mask was read for the
 * GPU (the recording rules' path, rules/whole-run.ts, where a reason is recorded only while active): above 0, a
 * segment with no `reason:*` series has every reason at 0; without it, the reasons are not exported.
 */
export const MASK_MINUTES_SERIES = 'mask:minutes';

/**
 * How GPU-Util spread over a segment's scrapes (%): its least, 90th percentile and greatest reading. The 90th
 * percentile decides one thing only, idle or not where the mean is under 5% (src/lib/diagnose/gpu.ts), so the rules
 * path reads it only where that can turn on it (rules/rules-path.ts `needsP90`); null where it was not read.
 */
export interface UtilSpread {
  min: number;
  p90: number | null;
  max: number;
}

/** Series named `util:min`, `util:p90`, `util:max` carry a segment's GPU-Util spread (UtilSpread). */
export const UTIL_SPREAD_SERIES = { min: 'util:min', p90: 'util:p90', max: 'util:max' } as const;

export interface CollectOptions {
  /** A PromQL selector such as `{hostname=~"gpu-.*"}`, applied to every dcgm-exporter series. */
  selector?: string | undefined;
  /** The end of the range, unix seconds. */
  endS: number;
  /** How far back, seconds. */
  rangeS: number;
  /** Seconds between points; at least the scrape interval. */
  stepS: number;
  /** Host names by node-exporter instance (nodeNamesAt), when the caller already asked for them. */
  nodeNames?: Promise<Map<string, string>> | undefined;
  /** The batches of hosts to read (batches.ts), when the caller already listed them; else listed over the range. */
  batches?: Promise<Batch[]> | undefined;
  /** Called after each batch. */
  onBatch?: OnBatch | undefined;
  /**
   * The dcgm-exporter series to read (default every gauge the fleet reads; the audit: DIAGNOSED_NAMES). A field whose
   * series is left out is null with that reason, not "not exported".
   */
  names?: readonly string[] | undefined;
}

const FIELD_SERIES = DCGM_SERIES.filter((s) => s.field !== null);
/** Every gauge the live view reads, under its dcgm-exporter 4.x name and its name before 4.0 where it had another. */
const NAMES = DCGM_SERIES.filter((s) => s.type === 'gauge').flatMap((s) =>
  DCGM_NAMES_BEFORE_4[s.name] ? [s.name, DCGM_NAMES_BEFORE_4[s.name]!] : [s.name],
);
/**
 * Gauges no verdict reads (src/lib/diagnose/stats.ts is where the engine reads a sample, for deciding and for its
 * evidence alike): graphics engine activity and XID fill no sample field; occupancy and free memory fill fields the
 * lab pages show (src/lib/lab/metrics.ts), not the engine. The audit's live view leaves them out (DIAGNOSED_NAMES):
 * 3 of the 17 series a GPU of the independent cluster sends, every verdict the same (test/fleet/independent.test.ts).
 */
const UNDIAGNOSED: ReadonlySet<string> = new Set([
  'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  'DCGM_FI_PROF_SM_OCCUPANCY',
  'DCGM_FI_DEV_FB_FREE',
  'DCGM_FI_DEV_XID_ERRORS',
]);
/** Every gauge the live view reads (NAMES) but those no verdict reads: what the audit's live view asks for. */
export const DIAGNOSED_NAMES: readonly string[] = NAMES.filter((n) => !UNDIAGNOSED.has(n));
const MASK = 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS';
const MASK_BEFORE_4 = DCGM_NAMES_BEFORE_4[MASK]!;

/** The matchers inside a user's selector (`{a="b"}` → `a="b"`), checked for a shape PromQL accepts. */
export function selectorMatchers(selector: string | undefined): string {
  const s = (selector ?? '').trim();
  if (!s) return '';
  const m = /^\{(.*)\}$/s.exec(s);
  if (!m) throw new Error(`a selector must look like {label="value"} (got ${s})`);
  const inner = m[1]!.trim();
  if (/[{}]/.test(inner)) throw new Error(`a selector must be one {…} of label matchers (got ${s})`);
  return inner;
}

/** Every dcgm-exporter series the fleet reads that `selector` selects: the hosts are listed from these. */
export const gpuMatch = (selector: string | undefined): string => seriesSelector(NAMES, selector);

/** A selector for `names` (a regex on `__name__`) joined with the user's matchers. */
export function seriesSelector(names: readonly string[], selector?: string): string {
  const user = selectorMatchers(selector);
  return `{__name__=~"${names.join('|')}"${user ? `, ${user}` : ''}}`;
}

/** Reads the GPUs that match `opts.selector` over the range and builds each host's messages. */
export async function collectFleet(client: PrometheusClient, opts: CollectOptions): Promise<FleetHost[]> {
  const startS = opts.endS - opts.rangeS;
  const user = selectorMatchers(opts.selector);
  const batches = opts.batches ?? targetBatches(client, gpuMatch(opts.selector), startS, opts.endS);
  const names = opts.names ?? NAMES;
  const read = (b: Batch) =>
    client.queryRange(seriesSelector(names, `{${withBatch(user, b)}}`), startS, opts.endS, opts.stepS);
  const [gpuSeries, hostSamples] = await Promise.all([
    batches.then((bs) => readInBatches(bs, read, 'live view', opts.onBatch)),
    hostSamplesOver(client, startS, opts.endS, opts.stepS, Math.max(60, opts.stepS * 4), opts.nodeNames),
  ]);
  const notRead = new Set(NAMES.filter((n) => !names.includes(n)));
  return buildHosts(gpuSeries, hostSamples, timeline(startS, opts.endS, opts.stepS), false, notRead);
}

/** Prometheus's default lookback (`--query.lookback-delta`), s: how old a newest sample an instant query returns. */
const LOOKBACK_S = 300;

/**
 * The GPUs that match `selector` at their newest scrape: one instant query per batch of hosts at `atS`, one message a
 * host (no host CPU). Prometheus answers each series' newest sample within its lookback (5 minutes by default), none
 * for a series marked stale (its target down); VictoriaMetrics leaves out its `-search.latencyOffset` (30 s by
 * default), which a one-point range query would lose whole.
 */
export async function newestFleet(
  client: PrometheusClient,
  opts: { selector?: string | undefined; atS: number },
): Promise<FleetHost[]> {
  const user = selectorMatchers(opts.selector);
  const batches = await targetBatches(client, gpuMatch(opts.selector), opts.atS - LOOKBACK_S, opts.atS);
  const read = (b: Batch) =>
    client
      .query(seriesSelector(NAMES, `{${withBatch(user, b)}}`), opts.atS)
      .then((series) => series.map((s): RangeSeries => ({ labels: s.labels, points: [[opts.atS, s.value]] })));
  return buildHosts(await readInBatches(batches, read, 'newest scrape'), new Map(), [opts.atS]);
}

/**
 * Hosts and their messages from range-query series named by dcgm-exporter's metric names, each point an
 * average over the step (`averaged`: clock event reasons then come as shares, see FleetHost.reasonShares).
 */
export function hostsFromSeries(
  series: RangeSeries[],
  startS: number,
  endS: number,
  stepS: number,
  hostSamples: Map<string, (HostSample | null)[]> = new Map(),
): FleetHost[] {
  return buildHosts(series, hostSamples, timeline(startS, endS, stepS), true);
}

/**
 * A GPU's identity across queries: its exporter (`instance`), index and UUID. The UUID alone is unique on real
 * hardware, but simulated lab servers can share one, and a key with the instance costs nothing.
 */
export function gpuKeyOf(labels: Record<string, string>): string {
  return `${labels['instance'] ?? ''}|${labels['gpu'] ?? '0'}|${labels['UUID'] ?? labels['uuid'] ?? ''}`;
}

function gpuOf(labels: Record<string, string>, targetSetsPod: boolean): FleetGpu {
  const instance = labels['instance'] ?? '';
  const gpu = Number(labels['gpu'] ?? 0);
  const uuid = labels['UUID'] ?? labels['uuid'] ?? null;
  return {
    key: gpuKeyOf(labels),
    instance,
    hostname: labelOf(labels, OWNER_LABELS.hostname) ?? instance.replace(/:\d+$/, ''),
    gpu,
    uuid,
    model: labels['modelName'] ?? labels['model_name'] ?? 'unknown GPU',
    owner: ownerOfLabels(labels, targetSetsPod),
    simulated: labels['simulated'] === 'true',
  };
}

const FIELD_REASON = (s: (typeof DCGM_SERIES)[number]) =>
  s.profiling
    ? `dcgm-exporter sends no ${s.name}: a profiling field${s.byDefault === false ? ', off in its default counters' : ''}, or not supported on this GPU`
    : `dcgm-exporter sends no ${s.name}: ${s.byDefault === false ? 'add it to its counters CSV' : 'not supported on this GPU, or left out of its counters CSV'}`;

function buildHosts(
  series: RangeSeries[],
  hostSamples: Map<string, (HostSample | null)[]>,
  times: number[],
  averaged = false,
  notRead: ReadonlySet<string> = new Set(),
): FleetHost[] {
  const gpus = new Map<string, { gpu: FleetGpu; values: Map<string, Map<number, number>> }>();
  const setsPod = targetsThatSetPod(series);
  for (const s of series) {
    const g = gpuOf(s.labels, setsPod.has(s.labels['instance'] ?? ''));
    let e = gpus.get(g.key);
    if (!e) gpus.set(g.key, (e = { gpu: g, values: new Map() }));
    else e.gpu.owner = mergeOwners(e.gpu.owner, g.owner);
    e.values.set(s.labels['__name__'] ?? '', pointMap(s));
  }
  const hosts = new Map<
    string,
    { hostname: string; gpus: { gpu: FleetGpu; values: Map<string, Map<number, number>> }[] }
  >();
  for (const e of gpus.values()) {
    let h = hosts.get(e.gpu.hostname);
    if (!h) hosts.set(e.gpu.hostname, (h = { hostname: e.gpu.hostname, gpus: [] }));
    h.gpus.push(e);
  }
  const out: FleetHost[] = [];
  for (const h of [...hosts.values()].sort((a, b) => a.hostname.localeCompare(b.hostname))) {
    h.gpus.sort((a, b) => a.gpu.gpu - b.gpu.gpu);
    const hostRow = hostSamples.get(h.hostname);
    const messages: StreamMessage[] = [];
    const corrupt: Map<number, string>[] = [];
    times.forEach((t, i) => {
      const bad = new Map<number, string>();
      const samples = h.gpus.map((e, index) =>
        gpuSample(
          e.gpu,
          e.values,
          t,
          index,
          averaged,
          (why) => {
            if (!bad.has(index)) bad.set(index, why);
          },
          notRead,
        ),
      );
      if (samples.every((s) => s.error !== null)) return; // no GPU of this host reported at this time
      corrupt.push(bad);
      messages.push({
        seq: i,
        sampledAtMs: Math.round(t * 1000),
        source: 'prometheus',
        simulated: false,
        reason: null,
        gpus: samples,
        host: hostRow?.[i] ?? null,
        throughput: null,
      });
    });
    const host: FleetHost = { hostname: h.hostname, gpus: h.gpus.map((e) => e.gpu), messages, corrupt };
    if (averaged) {
      host.reasonShares = messages.map((m) => reasonSharesAt(h.gpus, m.sampledAtMs / 1000));
      host.utilSpreads = messages.map((m) => utilSpreadsAt(h.gpus, m.sampledAtMs / 1000));
    }
    out.push(host);
  }
  return out;
}

function reasonSharesAt(
  gpus: { values: Map<string, Map<number, number>> }[],
  t: number,
): Map<number, Record<string, number>> {
  const out = new Map<number, Record<string, number>>();
  gpus.forEach((e, gi) => {
    const shares: Record<string, number> = {};
    // The exporter sends the bitmask for this GPU at this time (no reason active is a reading too); where only active
    // reasons are read (the rules path), its minutes over the run say so.
    let known = (e.values.get(MASK_MINUTES_SERIES)?.get(Math.round(t * 1000) / 1000) ?? 0) > 0;
    for (const [name, points] of e.values) {
      if (!name.startsWith(REASON_PREFIX)) continue;
      const raw = points.get(Math.round(t * 1000) / 1000);
      if (raw === undefined) continue;
      const v = readShare(name, raw).value;
      if (v === null) continue;
      known = true;
      if (v > 0) shares[name.slice(REASON_PREFIX.length)] = v;
    }
    if (known) out.set(gi, shares);
  });
  return out;
}

function utilSpreadsAt(gpus: { values: Map<string, Map<number, number>> }[], t: number): Map<number, UtilSpread> {
  const out = new Map<number, UtilSpread>();
  const at = Math.round(t * 1000) / 1000;
  gpus.forEach((e, gi) => {
    const read = (name: string) => {
      const raw = e.values.get(name)?.get(at);
      return raw === undefined ? null : readDcgm('DCGM_FI_DEV_GPU_UTIL', raw).value;
    };
    const min = read(UTIL_SPREAD_SERIES.min);
    const p90 = read(UTIL_SPREAD_SERIES.p90);
    const max = read(UTIL_SPREAD_SERIES.max);
    if (min !== null && max !== null) out.set(gi, { min, p90, max });
  });
  return out;
}

/** The reason a field is null when its series was left out of the read (CollectOptions.names). */
const NOT_READ = 'not read: no verdict uses it';

function gpuSample(
  gpu: FleetGpu,
  values: Map<string, Map<number, number>>,
  t: number,
  index: number,
  averaged: boolean,
  corrupt: (reason: string) => void,
  notRead: ReadonlySet<string>,
): GpuSample {
  const sample = emptyGpuSample({ index, uuid: gpu.uuid ?? gpu.key, name: gpu.model });
  const nullReasons = sample.nullReasons;
  /** The series' value at t through its parser (readings.ts); undefined when there is none. */
  const read = (name: string): { value: number | null; reason: string } | undefined => {
    const raw = values.get(name)?.get(t);
    if (raw === undefined) return undefined;
    const r = readDcgm(name, raw);
    if (r.corrupt) corrupt(r.reason);
    return { value: r.value, reason: r.reason ?? '' };
  };
  let any = false;
  for (const s of FIELD_SERIES) {
    const field = s.field as DcgmSampleField;
    const r = read(s.name);
    if (r === undefined || r.value === null) {
      nullReasons[field] = r
        ? `no reading: ${r.reason}`
        : values.has(s.name)
          ? 'no sample from dcgm-exporter at this time'
          : notRead.has(s.name)
            ? NOT_READ
            : FIELD_REASON(s);
      continue;
    }
    sample[field] = r.value * s.toField;
    any = true;
  }
  const used = read('DCGM_FI_DEV_FB_USED')?.value;
  const free = read('DCGM_FI_DEV_FB_FREE')?.value;
  if (typeof used === 'number' && typeof free === 'number') sample.memTotalBytes = (used + free) * 1024 * 1024;
  else
    nullReasons['memTotalBytes'] = notRead.has('DCGM_FI_DEV_FB_FREE')
      ? NOT_READ
      : 'needs DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE';
  for (const f of ['memReservedBytes', 'smClockMaxMhz', 'memClockMhz', 'memClockMaxMhz'] as const)
    nullReasons[f] = 'not among dcgm-exporter default counters';
  // The mask under dcgm-exporter 4.x's name, else under its name before 4.0 (a fleet may run both).
  const maskName = values.get(MASK)?.has(t) ? MASK : MASK_BEFORE_4;
  const mask = values.get(maskName)?.get(t);
  const decoded = mask === undefined || averaged ? null : readClockEventMask(mask, maskName);
  if (averaged) nullReasons['clockEventReasons'] = 'not read for window segments: a bitmask has no average';
  else if (decoded?.reasons) sample.clockEventReasons = decoded.reasons;
  else if (decoded && decoded.reasons === null) {
    nullReasons['clockEventReasons'] = `no reading: ${decoded.reason}`;
    if (decoded.corrupt) corrupt(decoded.reason);
  } else
    nullReasons['clockEventReasons'] =
      values.has(MASK) || values.has(MASK_BEFORE_4)
        ? 'no sample from dcgm-exporter at this time'
        : `dcgm-exporter sends no ${MASK} (${MASK_BEFORE_4} before 4.0): add it to its counters CSV to see throttling`;
  nullReasons['processes'] = 'Prometheus holds no process list (owner labels come from the pod)';
  for (const f of ['fp16ActivePct', 'fp32ActivePct', 'fp64ActivePct'] as const)
    nullReasons[f] = 'off in dcgm-exporter default counters';
  if (!any) sample.error = 'no series from this GPU at this time';
  return sample;
}

export { hostSamplesOver, nodeNamesAt, pointMap, timeline } from './host-samples.ts';

/**
 * GPM (Hopper and newer): SM, tensor, DRAM and FP activity measured between two GPM samples. Each GPU
 * keeps GPM_BUFFERS sample buffers; every tick fills the oldest and reads the window from the newest
 * other sample that is old enough (see gpmBase), so a timer firing a few ms early costs no reading.
 */
import { GPM_FIELDS } from '../../src/protocol/fields.ts';
import type { GpuSample } from '../../src/protocol/metrics.ts';
import type { DeviceHandle, GpmRequest, GpmSampleHandle, Nvml } from './binding.ts';
import { isFatal, NVML, NvmlError, nvmlCodeName } from './errors.ts';
import { GPM_METRIC } from './structs.ts';

const GPM_IDS = [
  GPM_METRIC.SM_UTIL,
  GPM_METRIC.SM_OCCUPANCY,
  GPM_METRIC.ANY_TENSOR_UTIL,
  GPM_METRIC.DRAM_BW_UTIL,
  GPM_METRIC.FP16_UTIL,
  GPM_METRIC.FP32_UTIL,
  GPM_METRIC.FP64_UTIL,
] as const;
type GpmField = (typeof GPM_FIELDS)[number];
/** NVML wants GPM samples at least 100 ms apart. */
const GPM_MIN_GAP_MS = 100;
/**
 * Timer jitter a window may fall short by when no older sample exists (only on the second tick):
 * at `--interval 100` ticks come 94–106 ms apart.
 */
const GPM_JITTER_MS = 10;
/**
 * GPM buffers per GPU: the new sample and the two before it. At a 100 ms interval the previous
 * sample can be a few ms too recent; the one before it is then ~200 ms old, so every tick finds a
 * base at least GPM_MIN_GAP_MS back and no tick is left without SM, tensor or DRAM activity.
 */
export const GPM_BUFFERS = 3;

/** One GPU's GPM state. */
export interface GpmState {
  supported: boolean;
  reason: string | null;
  samples: GpmSampleHandle[];
  /** When each buffer was filled (ms), null while it holds no good sample. */
  takenAtMs: (number | null)[];
  /** The window of the last metrics read, ms (from the base sample to the new one). */
  lastWindowMs: number | null;
  refused: Map<number, string>;
  /** Prepared metric requests by "base,current" buffer pair; dropped when a metric is refused. */
  requests: Map<string, GpmRequest>;
}

/**
 * The base for a window ending at `nowMs`: the newest other buffer at least GPM_MIN_GAP_MS old, else
 * one at most GPM_JITTER_MS short of it, else -1.
 */
function gpmBase(takenAtMs: readonly (number | null)[], current: number, nowMs: number): number {
  let best = -1;
  let near = -1;
  takenAtMs.forEach((at, i) => {
    if (i === current || at === null || at > nowMs) return;
    const age = nowMs - at;
    if (age >= GPM_MIN_GAP_MS && (best < 0 || at > (takenAtMs[best] as number))) best = i;
    else if (age >= GPM_MIN_GAP_MS - GPM_JITTER_MS && (near < 0 || at > (takenAtMs[near] as number))) near = i;
  });
  return best >= 0 ? best : near;
}

/**
 * Takes this tick's GPM sample and fills the GPM fields of `s` (or their null reasons) from the window
 * since the chosen base sample. Fatal NVML errors (GPU lost) propagate.
 */
export function readGpm(nvml: Nvml, handle: DeviceHandle, g: GpmState, s: GpuSample, nowMs: number): void {
  const setReason = (reason: string): void => {
    for (const f of GPM_FIELDS) s.nullReasons[f] = reason;
  };
  if (!g.supported || g.samples.length < 2) return setReason(g.reason ?? 'GPM not available');
  // The new sample goes into the oldest (or an empty) buffer; the two newer ones stay as bases.
  let current = 0;
  g.takenAtMs.forEach((at, i) => {
    const cur = g.takenAtMs[current] ?? null;
    if (cur !== null && (at === null || at < cur)) current = i;
  });
  try {
    nvml.gpmSampleGet(handle, g.samples[current] as GpmSampleHandle);
  } catch (e) {
    if (isFatal(e)) throw e;
    g.takenAtMs[current] = null;
    return setReason(`GPM sample failed: ${e instanceof NvmlError ? e.short : String(e)}`);
  }
  g.takenAtMs[current] = nowMs;
  const base = gpmBase(g.takenAtMs, current, nowMs);
  if (base < 0) return setReason('GPM needs two samples at least 100 ms apart: first value on the next tick');
  g.lastWindowMs = nowMs - (g.takenAtMs[base] as number);
  const key = `${base},${current}`;
  let request = g.requests.get(key);
  if (request === undefined) {
    const ids = GPM_IDS.filter((id) => !g.refused.has(id));
    request = nvml.prepareGpmMetrics(g.samples[base] as GpmSampleHandle, g.samples[current] as GpmSampleHandle, ids);
    g.requests.set(key, request);
  }
  let result: GpmRequest;
  try {
    result = nvml.gpmMetrics(request);
  } catch (e) {
    if (isFatal(e)) throw e;
    return setReason(`GPM metrics failed: ${e instanceof NvmlError ? e.short : String(e)}`);
  }
  GPM_IDS.forEach((id, k) => {
    const field: GpmField = GPM_FIELDS[k] as GpmField;
    const at = result.ids.indexOf(id);
    if (at < 0) {
      s.nullReasons[field] = g.refused.get(id) ?? 'not reported';
      return;
    }
    const code = result.codes[at] as number;
    const v = result.values[at] as number;
    if (code === NVML.SUCCESS && Number.isFinite(v)) s[field] = Math.round(Math.min(100, Math.max(0, v)) * 10) / 10;
    else if (code !== NVML.SUCCESS) {
      const reason = `${code === NVML.NOT_SUPPORTED ? 'not supported' : nvmlCodeName(code).toLowerCase()} (NVML ${code})`;
      if (code === NVML.NOT_SUPPORTED) {
        g.refused.set(id, reason); // this GPU will not start supporting it: stop asking
        g.requests.clear();
      }
      s.nullReasons[field] = reason;
    } else s.nullReasons[field] = 'not reported';
  });
}

/**
 * Picks the source from `--source`: "auto" (NVML, else simulation with the reason), "nvml",
 * "sim:<scenario>[?knob=value]" or "replay:<file>".
 */
import { NvmlError } from '../nvml/errors.ts';
import { createNvmlSource, type NvmlSourceOptions } from './nvml.ts';
import { createSimSource } from './sim.ts';
import type { MetricSource } from './types.ts';

export type { MetricSource, SourceReading } from './types.ts';

/** The scenario `auto` falls back to: a GPU with memory held and nothing running. */
export const FALLBACK_SCENARIO = 'idle';

/** Options beyond the spec string. */
export interface ResolveOptions extends NvmlSourceOptions {
  seed?: string;
  /** For prometheus:<url>. */
  prometheus?: {
    tokenFile: string | null;
    basicAuthFile: string | null;
    selector: string | null;
    /** Seconds one query may take (`--prometheus-query-timeout`). */
    queryTimeoutS?: number;
    /** Ask for gzip-compressed answers (false with `--prometheus-no-gzip`; default true). */
    gzip?: boolean;
  };
  /** The sampling interval, ms: a Prometheus source is read this often. */
  intervalMs?: number;
}

/**
 * Creates the source named by `spec`. Async only so that replay (and zod, ~19 MB) loads on demand.
 * @throws NvmlError for "nvml" when NVML cannot start; Error for an unknown spec or scenario.
 */
export async function resolveSource(spec: string, options: ResolveOptions = {}): Promise<MetricSource> {
  const nvmlOptions: NvmlSourceOptions = { ...options };
  if (spec === 'nvml') return createNvmlSource(nvmlOptions);
  if (spec === 'auto') {
    try {
      return createNvmlSource(nvmlOptions);
    } catch (e) {
      const why = e instanceof NvmlError ? e.message : `NVML failed: ${String(e)}`;
      return createSimSource({
        spec: FALLBACK_SCENARIO,
        reason: `${why} Simulated "${FALLBACK_SCENARIO}" data shown instead.`,
        ...(options.seed ? { seed: options.seed } : {}),
      });
    }
  }
  if (spec.startsWith('sim:'))
    return createSimSource({ spec: spec.slice(4), ...(options.seed ? { seed: options.seed } : {}) });
  if (spec.startsWith('replay:')) return (await import('./replay.ts')).createReplaySource(spec.slice(7));
  if (spec.startsWith('prometheus:')) return openFleetSource(spec.slice(11), options.prometheus, options.intervalMs);
  throw new Error(`Unknown source "${spec}": use auto, nvml, sim:<scenario>, replay:<file> or prometheus:<url>.`);
}

/** A fleet read from Prometheus, refreshing in the background (server/fleet/source.ts). */
async function openFleetSource(
  url: string,
  p: ResolveOptions['prometheus'],
  intervalMs = 15_000,
): Promise<MetricSource> {
  const { openPrometheusSource } = await import('../fleet/source.ts');
  const source = await openPrometheusSource({
    url,
    tokenFile: p?.tokenFile ?? undefined,
    basicAuthFile: p?.basicAuthFile ?? undefined,
    selector: p?.selector ?? undefined,
    refreshS: intervalMs / 1000,
    ...(p?.queryTimeoutS ? { timeoutMs: p.queryTimeoutS * 1000 } : {}),
    ...(p?.gzip === false ? { gzip: false } : {}),
  });
  source.start();
  return source;
}

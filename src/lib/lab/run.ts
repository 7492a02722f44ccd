/**
 * A lab run as pure state: which step is live, when it started, what passed, and the means each
 * step ended with (the baseline for `ratioTo: 'previous-step'`). Also the in-page simulator's
 * message builder and the NDJSON session format. No DOM; the lab island drives it.
 *
 * Lifecycle: `startRun()` → `advanceRun()` on every new sample → `done` once the last step passes.
 * A step's checks only see samples taken after it started, so a fix is judged on fresh data.
 */
import type { StreamMessage } from '../../protocol/metrics.ts';
import { sampleAt } from '../sim/index.ts';
import { checkSpanS, evaluateCheck, type Check, type CheckResult } from '../checks.ts';
import { METRIC_IDS, type MetricId, type MetricPoint } from './metrics.ts';
import type { LabSetup } from '../diagnose/setup.ts';

/** What the runner needs of a step. */
export interface RunStep {
  id: string;
  check: Check;
}

/** Where a run stands. */
export interface RunState {
  /** Index of the live step; equals the number of steps when the lab is done. */
  index: number;
  /** Sample time the live step started at (its checks see only later samples); null before the first sample. */
  startedAtMs: number | null;
  /** Sample time each finished step passed at. */
  passedAtMs: number[];
  /** Means over each finished step's check window, by metric. */
  baselines: Partial<Record<MetricId, number | null>>[];
}

/** A fresh run. */
export function startRun(): RunState {
  return { index: 0, startedAtMs: null, passedAtMs: [], baselines: [] };
}

/** The points a step's checks may see: those after it started. */
export function stepPoints(state: RunState, points: readonly MetricPoint[]): MetricPoint[] {
  const from = state.startedAtMs;
  return from === null ? [...points] : points.filter((p) => p.tMs > from || (state.index === 0 && p.tMs === from));
}

/**
 * Evaluates the live step on `points` (oldest first, the whole session) and moves on when it
 * passes. Returns the new state (the same object when nothing changed) and the live result.
 */
export function advanceRun(
  steps: readonly RunStep[],
  state: RunState,
  points: readonly MetricPoint[],
): { state: RunState; result: CheckResult | null; done: boolean } {
  const step = steps[state.index];
  if (!step) return { state, result: null, done: true };
  const first = points[0];
  if (!first) return { state, result: null, done: false };
  const s = state.startedAtMs === null ? { ...state, startedAtMs: first.tMs } : state;
  const seen = stepPoints(s, points);
  const result = evaluateCheck(step.check, seen, { baseline: s.baselines[s.index - 1] ?? {} });
  if (result.state !== 'pass') return { state: s, result, done: false };
  const last = seen[seen.length - 1] as MetricPoint;
  const span = checkSpanS(step.check) * 1000;
  const tail = seen.filter((p) => p.tMs > last.tMs - span);
  const baseline: Partial<Record<MetricId, number | null>> = {};
  // Every metric, so a later step's `ratioTo: previous-step` may compare any of them (e.g. the power limit).
  for (const id of METRIC_IDS) {
    const vals = tail.map((p) => p.values[id]).filter((v): v is number => v !== null);
    baseline[id] = vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null;
  }
  const next: RunState = {
    index: s.index + 1,
    startedAtMs: last.tMs,
    passedAtMs: [...s.passedAtMs, last.tMs],
    baselines: [...s.baselines, baseline],
  };
  return { state: next, result, done: next.index >= steps.length };
}

/**
 * One in-page simulator tick as the server would stream it (same generator as `--source sim:`).
 * @example simMessage('data-starved', 12_500, 'lab', { numWorkers: 8 }, 25)
 */
export function simMessage(
  scenarioId: string,
  tMs: number,
  seed: string | number,
  knobs: Readonly<Record<string, number>>,
  seq: number,
  epochMs = 0,
): StreamMessage {
  const frame = sampleAt(scenarioId, tMs, seed, knobs);
  const knobText = Object.entries(knobs)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return {
    seq,
    sampledAtMs: epochMs + tMs,
    source: `sim:${scenarioId}${knobText ? `?${knobText}` : ''}`,
    simulated: true,
    reason: 'simulated in this page (no lab server)',
    gpus: frame.gpus,
    host: frame.host,
    throughput: frame.throughput ? { ...frame.throughput, reportedAtMs: epochMs + tMs } : null,
  };
}

/** The recorded session as NDJSON: one StreamMessage per line, replayable with `--source replay:FILE`. */
export function toNdjson(messages: readonly StreamMessage[]): string {
  return messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : '');
}

/** A lab as the page's island receives it (Markdown already rendered at build time). */
export interface LabView {
  id: string;
  title: string;
  needs: 'gpu' | 'hopper' | 'none';
  workload: string | null;
  charts: { title: string; metrics: MetricId[]; thresholds: { value: number; label: string }[] }[];
  mfu: { flopsPerToken: number; peakTflops: number | null } | null;
  /** Show the cost box, priced at the GPU's sourced list price (src/lib/lab/cost.ts). */
  cost: boolean;
  /** What the workload's setup rules out, passed to the diagnosis (src/lib/diagnose/setup.ts). */
  setup: LabSetup[];
  steps: {
    id: string;
    title: string;
    instructionHtml: string;
    run: string | null;
    check: Check;
    /** The check in words, e.g. "mean GPU-Util over 10 s < 40%". */
    checkText: string;
    hintHtml: string;
    sim: { scenario: string; knobs: Record<string, number> };
    fix: { label: string; scenario: string; knobs: Record<string, number> } | null;
  }[];
  /** The card the debrief links to. */
  card: { id: string; title: string };
}

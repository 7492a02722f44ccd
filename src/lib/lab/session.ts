/**
 * A lab page's session as one value: the data source, the run through the steps, the live points,
 * the diagnosis and what the page says. `labReducer` is the only way it changes (pure: the clock
 * comes in with the actions that need it); `createLabSession` holds one session for the lab page's
 * island, which reads it with `useSyncExternalStore` (`subscribe`, `get`). The sources, storage and
 * the 'saturate:lab-done' event are the caller's (src/client/lab-runner.ts).
 *
 * Lifecycle: `opened` (what the page and the device remember) → `restart` on each new source →
 * `message` per sample → `done` once the last step passes; `stopped` ends the source, not the run.
 */
import type { DeviceInfo, StreamMessage } from '../../protocol/metrics.ts';
import type { CheckResult } from '../checks.ts';
import { diagnose, type Diagnosis } from '../diagnose/index.ts';
import { toPoint, type MetricContext, type MetricPoint } from './metrics.ts';
import { checkSpanS } from '../checks.ts';
import { resumeRun, savedRunOf, type SavedRun } from './progress.ts';
import { advanceRun, type LabView, type RunState } from './run.ts';

/** Points kept for the charts and checks: 10 minutes at 500 ms. */
export const MAX_POINTS = 1200;
/** Messages kept for the download and the diagnosis: an hour at 500 ms. */
export const MAX_MESSAGES = 7200;
/** Sample time between two diagnoses, ms. */
export const DIAGNOSE_EVERY_MS = 2000;

/** What the connect panel shows about the source. */
export interface SourceInfo {
  kind: 'page-sim' | 'server';
  /** True for anything that is not a live reading of a GPU. */
  simulated: boolean;
  /** E.g. "sim:data-starved", "nvml". */
  source: string;
  /** Why it is simulated, from the server; null for live NVML. */
  reason: string | null;
  devices: DeviceInfo[];
  /** Origin of the server, for server sources. */
  origin: string | null;
  /**
   * Who applies a step's fix: 'page' (the in-page simulator), 'server' (the lab server's simulation, through
   * POST /api/sim/knobs), or 'none' (a real GPU or a replay: the learner runs the step's command).
   */
  control: 'page' | 'server' | 'none';
}

/** What a page's own lab server says about itself (`GET /api/health`, no token needed). */
export interface OwnServer {
  origin: string;
  source: string;
  simulated: boolean;
  reason: string | null;
}

/** What the in-page simulator plays right now (read on every tick, so a fix applies at once). */
export interface SimPlay {
  scenario: string;
  knobs: Record<string, number>;
  /** Simulated seconds per real second. */
  speed: number;
}

/** What the session needs of a lab. */
export type SessionLab = Pick<LabView, 'steps' | 'mfu' | 'setup'>;

/** A lab session. */
export interface LabSession {
  /** The running source, null before one starts and after "Stop". */
  source: SourceInfo | null;
  /** The server connection's state ("connecting…", "reconnecting…"), '' for none. */
  status: string;
  /** Why the last start or connect failed, '' for none. */
  error: string;
  /** The lab server URL in the connect form. */
  serverUrl: string;
  /** Show the server form at once (the page was opened with ?server= or ?token=). */
  serverFirst: boolean;
  /**
   * This page is served by a lab server (its own origin answers /api/health): what that server reads, so the page
   * can say it in one line and connect to it by itself. Null on a static host or before the page asked.
   */
  ownServer: OwnServer | null;
  /** In-page simulator speed (simulated seconds per real second). */
  speed: number;
  /** The GPU whose metrics are charted and checked (position in the message's `gpus`). */
  gpuIndex: number;
  /** Every message since the run started, oldest first, at most MAX_MESSAGES. */
  messages: StreamMessage[];
  /** The chosen GPU's points, oldest first, at most MAX_POINTS. */
  points: MetricPoint[];
  run: RunState;
  /** The live step's check result. */
  result: CheckResult | null;
  /** The learner applied the live step's fix (the fix control shows it as applied). */
  fixApplied: boolean;
  /** The in-page simulator plays the live step's fix: once applied, and for good once the lab is done. */
  fixPlaying: boolean;
  diagnosis: Diagnosis | null;
  /** Sample time of the last diagnosis, ms. */
  diagnosedAtMs: number;
  /** Every step passed in this run. */
  done: boolean;
  /** The debrief is open (this run or an earlier one on this device). */
  unlocked: boolean;
  /** What the polite live region says. */
  announce: string;
  /** When the run started (epoch ms), for the lab's duration. */
  startedAtMs: number;
  /** Steps this device saw pass in an unfinished run: a new run resumes there (src/lib/lab/progress.ts). */
  saved: SavedRun | null;
  /** The diagnosis reads only samples after this time, ms: set when the lab completes, so it reads the fixed run. */
  diagnoseFromMs: number;
  /**
   * The last sample before the live step's fix took effect (ms; null until it is applied): the page's 'fix', or in
   * the server's simulation the server confirming it. A lab that completes judges its verdict on samples after it.
   */
  fixFromMs: number | null;
}

/** Everything that changes a session. */
export type LabAction =
  | { type: 'opened'; serverUrl: string; serverFirst: boolean; unlocked: boolean; saved: SavedRun | null }
  | { type: 'server-url'; url: string }
  /** This page's origin is a lab server (its health answered). */
  | { type: 'own-server'; server: OwnServer }
  | { type: 'restart'; at: number }
  /** Forget the saved steps and start the run again from step 1. */
  | { type: 'start-over'; at: number }
  /** The lab server now plays `source` (its id after a scenario switch). */
  | { type: 'controlled'; source: string; reason: string | null }
  /** The lab server refused to change its data (409: a real GPU or a replay): `message` says why. */
  | { type: 'refused'; message: string }
  | { type: 'status'; text: string }
  | { type: 'error'; message: string }
  | { type: 'started'; info: SourceInfo }
  | { type: 'stopped' }
  | { type: 'message'; message: StreamMessage }
  | { type: 'speed'; speed: number }
  | { type: 'gpu'; index: number }
  | { type: 'fix' };

/** The session before anything happened (also what the server renders). */
export function newLabSession(): LabSession {
  return {
    source: null,
    status: '',
    error: '',
    serverUrl: '',
    serverFirst: false,
    ownServer: null,
    speed: 1,
    gpuIndex: 0,
    ...freshRun(0, null),
    unlocked: false,
    announce: '',
    saved: null,
  };
}

/** The run part of a session, as a new source starts it at `at` (resuming `saved`). */
function freshRun(at: number, saved: SavedRun | null) {
  return {
    messages: [],
    points: [],
    run: resumeRun(saved),
    result: null,
    fixApplied: false,
    fixPlaying: false,
    diagnosis: null,
    diagnosedAtMs: -Infinity,
    diagnoseFromMs: -Infinity,
    fixFromMs: null,
    done: false,
    startedAtMs: at,
  } satisfies Partial<LabSession>;
}

/** What derived metrics (MFU) need from the lab. */
export function metricContext(lab: Pick<LabView, 'mfu'>): MetricContext {
  const ctx: MetricContext = {};
  if (lab.mfu) {
    ctx.flopsPerUnit = lab.mfu.flopsPerToken;
    if (lab.mfu.peakTflops !== null) ctx.peakTflops = lab.mfu.peakTflops;
  }
  return ctx;
}

/** `items` with `item` added at the end, keeping the newest `max`. */
function appendCapped<T>(items: readonly T[], item: T, max: number): T[] {
  const out = items.slice(Math.max(0, items.length - max + 1));
  out.push(item);
  return out;
}

/** One sample: the run advances, a passed step is announced, the last one completes the lab. */
function received(lab: SessionLab, s: LabSession, m: StreamMessage): LabSession {
  const messages = appendCapped(s.messages, m, MAX_MESSAGES);
  const points = appendCapped(s.points, toPoint(m, s.gpuIndex, metricContext(lab)), MAX_POINTS);
  const r = advanceRun(lab.steps, s.run, points);
  const next: LabSession = { ...s, messages, points, run: r.state, result: r.result };
  let diagnoseNow = m.sampledAtMs - s.diagnosedAtMs >= DIAGNOSE_EVERY_MS;
  if (r.state.index !== s.run.index) {
    // The step that passed owns `r.result`: the new live step has no result of its own yet.
    next.result = null;
    next.fixPlaying = s.done || r.done;
    next.fixApplied = false;
    next.fixFromMs = null;
    next.announce = `Step ${s.run.index + 1} passed: ${lab.steps[s.run.index]?.title ?? ''}.`;
    next.saved = savedRunOf(r.state, lab.steps.length);
  }
  if (r.done && !s.done) {
    next.done = true;
    next.fixPlaying = true;
    next.unlocked = true;
    next.announce = 'Every step passed. The debrief is unlocked.';
    // Diagnose the window the last check passed on, at once: not a verdict carried over from before the fix. A
    // check can pass on a window that still holds samples from before its fix (a ratio to the previous step met
    // by the first fixed seconds): the verdict reads only those after the fix, and says it is collecting until
    // there are enough.
    const last = lab.steps[lab.steps.length - 1];
    const span = m.sampledAtMs - (last ? checkSpanS(last.check) : 0) * 1000;
    next.diagnoseFromMs = s.fixFromMs === null ? span : Math.max(span, s.fixFromMs + 1);
    diagnoseNow = true;
  }
  if (diagnoseNow) {
    next.diagnosedAtMs = m.sampledAtMs;
    const from = next.diagnoseFromMs;
    // The lab's setup rules causes out (a CUDA-Graph step launches no kernels from Python): never named.
    next.diagnosis = diagnose(
      messages.slice(-240).filter((x) => x.sampledAtMs >= from),
      undefined,
      lab.setup,
    );
  }
  return next;
}

/**
 * The next session for `lab`.
 * @example labReducer(lab, newLabSession(), { type: 'fix' }).fixPlaying // true
 */
export function labReducer(lab: SessionLab, s: LabSession, a: LabAction): LabSession {
  switch (a.type) {
    case 'opened':
      return {
        ...s,
        serverUrl: a.serverUrl,
        serverFirst: a.serverFirst,
        unlocked: a.unlocked,
        saved: a.saved,
        run: s.messages.length === 0 ? resumeRun(a.saved) : s.run,
      };
    case 'server-url':
      return { ...s, serverUrl: a.url };
    case 'own-server':
      return { ...s, ownServer: a.server };
    case 'restart':
      return { ...s, ...freshRun(a.at, s.saved), error: '', status: '' };
    case 'start-over':
      return { ...s, ...freshRun(a.at, null), saved: null, announce: 'Started again from step 1.' };
    case 'controlled':
      return s.source?.control === 'server'
        ? {
            ...s,
            source: { ...s.source, source: a.source, reason: a.reason ?? s.source.reason },
            // The server plays the fix from now: what came before was sampled without it.
            ...(s.fixPlaying && !s.done ? { fixFromMs: s.messages.at(-1)?.sampledAtMs ?? null } : {}),
          }
        : s;
    case 'refused':
      return s.source ? { ...s, source: { ...s.source, control: 'none' }, error: a.message } : s;
    case 'status':
      return { ...s, status: a.text };
    case 'error':
      return { ...s, error: a.message };
    case 'started':
      return { ...s, source: a.info, gpuIndex: 0 };
    case 'stopped':
      return { ...s, source: null, status: '' };
    case 'message':
      return received(lab, s, a.message);
    case 'speed':
      return { ...s, speed: a.speed };
    case 'gpu': {
      const ctx = metricContext(lab);
      const points = s.messages.slice(-MAX_POINTS).map((m) => toPoint(m, a.index, ctx));
      return { ...s, gpuIndex: a.index, points };
    }
    case 'fix':
      return { ...s, fixApplied: true, fixPlaying: true, fixFromMs: s.messages.at(-1)?.sampledAtMs ?? null };
  }
}

/** What the in-page simulator plays for the live step: its scenario, or its fix once that plays. */
export function simPlay(lab: Pick<LabView, 'steps'>, s: LabSession): SimPlay {
  const step = lab.steps[Math.min(s.run.index, lab.steps.length - 1)]!;
  const fix = s.fixPlaying ? step.fix : null;
  return {
    scenario: fix ? fix.scenario : step.sim.scenario,
    knobs: fix ? { ...step.sim.knobs, ...fix.knobs } : step.sim.knobs,
    speed: s.speed,
  };
}

/** One session held for a page: `get` and `subscribe` as `useSyncExternalStore` wants them. */
export interface LabSessionModel {
  /** The session now (the same object until something changes). */
  get(): LabSession;
  /** Calls `listener` after each change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  dispatch(action: LabAction): void;
}

/** Holds a session for `lab`, starting from `newLabSession()`. */
export function createLabSession(lab: SessionLab): LabSessionModel {
  let state = newLabSession();
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch(action) {
      const next = labReducer(lab, state, action);
      if (next === state) return;
      state = next;
      for (const l of [...listeners]) l();
    },
  };
}

/**
 * Where a lab's samples come from: the simulator running in this page (no server, works offline),
 * or the companion lab server (a real GPU or its `sim:` scenarios) over SSE. Both hand the lab the
 * same `StreamMessage`s. Browser-only; the lab runner (lab-runner.ts) is the one user.
 */
import type { DeviceInfo, StreamMessage } from '../protocol/metrics.ts';
import { simMessage } from '../lib/lab/run.ts';
import type { OwnServer, SimPlay, SourceInfo } from '../lib/lab/session.ts';
import { scenarioDevices } from '../lib/sim/index.ts';
import { bootOf, retryDelayMs } from '../lib/lab/connection.ts';

/** A running source; `stop()` ends it. */
export interface RunningSource {
  info: SourceInfo;
  stop(): void;
}

/** Sampling interval of the simulated server, ms of simulated time. */
export const SIM_INTERVAL_MS = 500;

/** Starts the in-page simulator: one message per 500 ms of simulated time, `speed` times faster than real. */
export function startPageSim(seed: string, play: () => SimPlay, onMessage: (m: StreamMessage) => void): RunningSource {
  const epoch = Date.now();
  let tMs = 0;
  let seq = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const p = play();
    onMessage(simMessage(p.scenario, tMs, seed, p.knobs, seq++, epoch));
    tMs += SIM_INTERVAL_MS;
    timer = setTimeout(tick, SIM_INTERVAL_MS / Math.max(0.1, p.speed));
  };
  const first = play();
  timer = setTimeout(tick, 0);
  return {
    info: {
      kind: 'page-sim',
      simulated: true,
      source: `sim:${first.scenario}`,
      reason: 'simulated in this page (no lab server)',
      devices: scenarioDevices(first.scenario, seed),
      origin: null,
      control: 'page',
    },
    stop: () => clearTimeout(timer),
  };
}

/** A lab server address split into its origin and token. */
export interface ServerAddress {
  origin: string;
  token: string;
}

/**
 * Reads the URL the lab server printed (`http://127.0.0.1:8790/?token=…`).
 * @throws Error whose message says what to paste instead.
 */
export function parseServerUrl(text: string): ServerAddress {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(
      'That is not a URL. Paste the whole line the lab server printed, e.g. http://127.0.0.1:8790/?token=…',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('The lab server URL starts with http://.');
  const token = url.searchParams.get('token') ?? '';
  if (!token) throw new Error('The URL has no ?token=… part. Copy the whole URL the lab server printed.');
  return { origin: url.origin, token };
}

/** Minimal shape check of a stream message (the full zod schema stays on the server side to keep this page light). */
function looksLikeMessage(m: unknown): m is StreamMessage {
  const o = m as Partial<StreamMessage> | null;
  return (
    !!o &&
    typeof o.sampledAtMs === 'number' &&
    Array.isArray(o.gpus) &&
    typeof o.simulated === 'boolean' &&
    typeof o.source === 'string'
  );
}

/** What the connection reports to the runner. */
export interface ServerEvents {
  onMessage: (m: StreamMessage) => void;
  /** "connected", "reconnecting…", "busy: trying again in 5 s", "disconnected". */
  onStatus: (text: string) => void;
  /** The stream came back from another run of the server (it restarted): its simulation starts afresh. */
  onRestart: () => void;
  /** The server refused for good (a token that changed): the message says what to do. */
  onFatal: (message: string) => void;
}

/** The `{ error }` text of a lab server answer, or ''. */
async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: unknown };
    return typeof body.error === 'string' ? body.error : '';
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `fetch`, trying again after a 503 (the server's connection cap) as long as Retry-After and the backoff say. */
async function fetchPatiently(url: string, init: RequestInit, onStatus: (t: string) => void, tries = 4) {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, { cache: 'no-store', ...init });
    if (res.status !== 503 || attempt + 1 >= tries) return res;
    const waitMs = retryDelayMs(attempt, res.headers.get('retry-after'), Date.now());
    onStatus(`the lab server is busy: trying again in ${Math.round(waitMs / 1000)} s`);
    await sleep(waitMs);
  }
}

async function getJson(url: string, what: string, onStatus: (t: string) => void): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchPatiently(url, {}, onStatus);
  } catch {
    throw new Error(
      `Could not reach the lab server for ${what}. Is \`npm start\` running? If this page is not served by it, start the server with --allow-origin ${location.origin}, and allow this site to reach devices on your network if the browser asks.`,
    );
  }
  if (res.status === 401 || res.status === 403) {
    const said = await errorText(res);
    throw new Error(
      `The lab server refused ${what} (${res.status}). ${said || `Open the URL the lab server printed; from another site, start it with --allow-origin ${location.origin}.`}`,
    );
  }
  if (!res.ok) throw new Error(`The lab server answered ${res.status} for ${what}. ${await errorText(res)}`.trim());
  return res.json();
}

/**
 * The SSE stream, kept open: the browser's EventSource resumes a dropped stream by itself (with Last-Event-ID);
 * an answer that closes it (a 503 at the connection or stream cap) is tried again after Retry-After, with backoff.
 */
function keepStream(streamUrl: string, ev: ServerEvents): () => void {
  let es: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let attempt = 0;
  let lastId = '';
  let boot: string | null = null;
  const open = () => {
    if (stopped) return;
    const src = new EventSource(lastId ? `${streamUrl}&lastEventId=${encodeURIComponent(lastId)}` : streamUrl);
    es = src;
    src.addEventListener('open', () => {
      attempt = 0;
      ev.onStatus('connected');
    });
    src.addEventListener('sample', (e) => {
      const id = (e as MessageEvent<string>).lastEventId;
      const b = bootOf(id);
      if (b !== null && boot !== null && b !== boot) ev.onRestart();
      if (b !== null) boot = b;
      lastId = id;
      try {
        const m: unknown = JSON.parse((e as MessageEvent<string>).data);
        if (looksLikeMessage(m)) ev.onMessage(m);
      } catch {
        /* a malformed line: skip it, the next tick follows */
      }
    });
    src.addEventListener('error', () => {
      if (src.readyState !== EventSource.CLOSED) return ev.onStatus('reconnecting…');
      void retry();
    });
  };
  const retry = async () => {
    es?.close();
    ev.onStatus('reconnecting…');
    // EventSource hides the answer: ask once more with fetch to read its status and Retry-After.
    let waitMs = retryDelayMs(attempt, null, Date.now());
    try {
      const ctl = new AbortController();
      const res = await fetch(streamUrl, { cache: 'no-store', signal: ctl.signal });
      ctl.abort();
      if (res.status === 401 || res.status === 403) {
        stopped = true;
        ev.onStatus('disconnected');
        return ev.onFatal(`The lab server refused the stream (${res.status}). ${await errorText(res)}`.trim());
      }
      if (res.status === 503) {
        waitMs = retryDelayMs(attempt, res.headers.get('retry-after'), Date.now());
        ev.onStatus(`the lab server is busy: trying again in ${Math.round(waitMs / 1000)} s`);
      }
      if (res.ok) waitMs = 0;
    } catch {
      /* not reachable now: keep the backoff */
    }
    attempt++;
    if (!stopped) timer = setTimeout(open, waitMs);
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    es?.close();
  };
}

/** Connects to a lab server: health, devices, then the SSE stream, kept open (see keepStream). */
export async function connectServer(addr: ServerAddress, ev: ServerEvents): Promise<RunningSource> {
  const health = (await getJson(`${addr.origin}/api/health`, 'its health check', ev.onStatus)) as {
    source: string;
    simulated: boolean;
    reason: string | null;
  };
  const q = `token=${encodeURIComponent(addr.token)}`;
  const devices = (await getJson(`${addr.origin}/api/devices?${q}`, 'the device list', ev.onStatus)) as {
    devices: DeviceInfo[];
  };
  const stop = keepStream(`${addr.origin}/api/stream?${q}`, ev);
  return {
    info: {
      kind: 'server',
      simulated: health.simulated,
      source: health.source,
      reason: health.reason,
      devices: devices.devices,
      origin: addr.origin,
      control: health.simulated && !health.source.startsWith('replay:') ? 'server' : 'none',
    },
    stop,
  };
}

/** What the lab server said to a change of its simulation. */
export type KnobsAnswer =
  { ok: true; source: string; reason: string | null } | { ok: false; status: number; message: string };

/** Asks the lab server's simulation to play `scenario` with `knobs` (POST /api/sim/knobs, server/sim-routes.ts). */
export async function setServerKnobs(
  addr: ServerAddress,
  play: { scenario: string; knobs: Record<string, number> },
): Promise<KnobsAnswer> {
  let res: Response;
  try {
    res = await fetchPatiently(
      `${addr.origin}/api/sim/knobs?token=${encodeURIComponent(addr.token)}`,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(play) },
      () => {},
    );
  } catch {
    return { ok: false, status: 0, message: 'Could not reach the lab server to apply the step.' };
  }
  if (!res.ok) return { ok: false, status: res.status, message: await errorText(res) };
  const body = (await res.json()) as { source?: unknown };
  // The server's words on why it simulates name the scenario: read them again after a switch.
  const health = (await fetch(`${addr.origin}/api/health`, { cache: 'no-store' })
    .then((r) => r.json())
    .catch(() => ({}))) as { reason?: unknown };
  return {
    ok: true,
    source: typeof body.source === 'string' ? body.source : `sim:${play.scenario}`,
    reason: typeof health.reason === 'string' ? health.reason : null,
  };
}

/**
 * What this page's own origin says when it is a lab server (`npm start` serves the site and the API together):
 * its health, which needs no token. Null on a static host (404, or the host's HTML) or when it does not answer.
 */
export async function probeOwnServer(): Promise<OwnServer | null> {
  try {
    const res = await fetch(`${location.origin}/api/health`, { cache: 'no-store' });
    if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) return null;
    const h = (await res.json()) as { ok?: unknown; source?: unknown; simulated?: unknown; reason?: unknown };
    if (h.ok !== true || typeof h.source !== 'string') return null;
    return {
      origin: location.origin,
      source: h.source,
      simulated: h.simulated === true,
      reason: typeof h.reason === 'string' ? h.reason : null,
    };
  } catch {
    return null;
  }
}

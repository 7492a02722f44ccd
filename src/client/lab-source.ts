/**
 * Where a lab's samples come from: the simulator running in this page (no server, works offline),
 * or the companion lab server (a real GPU or its `sim:` scenarios) over SSE. Both hand the lab the
 * same `StreamMessage`s. Browser-only; the lab runner (lab-runner.ts) is the one user.
 */
import type { DeviceInfo, StreamMessage } from '../protocol/metrics.ts';
import { simMessage } from '../lib/lab-run.ts';
import type { SimPlay, SourceInfo } from '../lib/lab-session.ts';
import { scenarioDevices } from '../lib/sim/index.ts';

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

async function getJson(url: string, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { cache: 'no-store' });
  } catch {
    throw new Error(
      `Could not reach the lab server for ${what}. Is \`npm run lab\` running? If this page is not served by it, start the server with --allow-origin ${location.origin}, and allow this site to reach devices on your network if the browser asks.`,
    );
  }
  if (res.status === 401 || res.status === 403)
    throw new Error(
      `The lab server refused ${what} (${res.status}): the token is wrong or this page's origin is not allowed (--allow-origin ${location.origin}).`,
    );
  if (!res.ok) throw new Error(`The lab server answered ${res.status} for ${what}.`);
  return res.json();
}

/** Connects to a lab server: health, devices, then the SSE stream. `onStatus` reports reconnects. */
export async function connectServer(
  addr: ServerAddress,
  onMessage: (m: StreamMessage) => void,
  onStatus: (text: string) => void,
): Promise<RunningSource> {
  const health = (await getJson(`${addr.origin}/api/health`, 'its health check')) as {
    source: string;
    simulated: boolean;
    reason: string | null;
  };
  const q = `token=${encodeURIComponent(addr.token)}`;
  const devices = (await getJson(`${addr.origin}/api/devices?${q}`, 'the device list')) as { devices: DeviceInfo[] };
  const es = new EventSource(`${addr.origin}/api/stream?${q}`);
  es.addEventListener('sample', (e) => {
    try {
      const m: unknown = JSON.parse((e as MessageEvent<string>).data);
      if (looksLikeMessage(m)) onMessage(m);
    } catch {
      /* a malformed line: skip it, the next tick follows */
    }
  });
  es.addEventListener('open', () => onStatus('connected'));
  // EventSource reconnects by itself (resuming with Last-Event-ID); just say so.
  es.addEventListener('error', () => onStatus(es.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting…'));
  return {
    info: {
      kind: 'server',
      simulated: health.simulated,
      source: health.source,
      reason: health.reason,
      devices: devices.devices,
      origin: addr.origin,
    },
    stop: () => es.close(),
  };
}

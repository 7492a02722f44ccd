/** Test helpers: start a lab server on port 0, read SSE with fetch, raw HTTP requests. */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type LabServer, type ServerOptions } from '../../server/app.ts';
import type { HubClock } from '../../server/stream.ts';

/** A listening server, its base URL and token. */
export interface Running {
  lab: LabServer;
  base: string;
  port: number;
  token: string;
}

/** Creates and listens on 127.0.0.1:0. Close with `lab.close()` in a finally. */
export async function listen(options: ServerOptions): Promise<Running> {
  const lab = createServer({ log: () => {}, ...options });
  await new Promise<void>((resolve) => lab.server.listen(0, '127.0.0.1', resolve));
  const port = (lab.server.address() as AddressInfo).port;
  return { lab, base: `http://127.0.0.1:${port}`, port, token: lab.token };
}

/** One parsed SSE event. */
export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
}

/** Reads SSE events from a fetch response body. */
export function sseReader(res: Response): { next(timeoutMs?: number): Promise<SseEvent>; cancel(): Promise<void> } {
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const pending: SseEvent[] = [];
  const parse = (): void => {
    let idx: number;
    while ((idx = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, idx);
      buffer = buffer.slice(idx + 2);
      const ev: SseEvent = { event: 'message', id: null, data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') ev.event = value;
        else if (field === 'id') ev.id = value;
        else if (field === 'data') data.push(value);
      }
      // As EventSource does: a block without data lines (e.g. "retry: 1000") sets state but dispatches nothing.
      if (data.length === 0) continue;
      ev.data = data.join('\n');
      pending.push(ev);
    }
  };
  return {
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (pending.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('timed out waiting for an SSE event');
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out waiting for an SSE event')), left);
        });
        try {
          const { done, value } = await Promise.race([reader.read(), timeout]);
          if (done) throw new Error('stream ended');
          buffer += decoder.decode(value, { stream: true });
          parse();
        } finally {
          clearTimeout(timer);
        }
      }
      return pending.shift() as SseEvent;
    },
    async cancel() {
      await reader.cancel().catch(() => {});
    },
  };
}

/** A raw HTTP/1.1 request with exactly these headers (fetch would fix up Host). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
        setHost: !(options.headers && 'Host' in options.headers),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** A clock for the stream hub that moves only when `advance` is called, firing due timers in order. */
export function manualClock(startMs: number): HubClock & { advance(ms: number): void } {
  let now = startMs;
  const timers = new Set<{ everyMs: number; dueMs: number; fn: () => void }>();
  return {
    now: () => now,
    every(everyMs, fn) {
      const timer = { everyMs, dueMs: now + everyMs, fn };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        let next: { everyMs: number; dueMs: number; fn: () => void } | null = null;
        for (const t of timers) if (t.dueMs <= end && (next === null || t.dueMs < next.dueMs)) next = t;
        if (next === null) break;
        now = next.dueMs;
        next.dueMs += next.everyMs;
        next.fn();
      }
      now = end;
    },
  };
}

/** The seq part of an SSE event id (`<bootId>-<seq>`). */
export function seqOf(id: string | null): number {
  const m = id === null ? null : /^[0-9a-f]+-(\d+)$/.exec(id);
  if (!m) throw new Error(`not a stream event id: ${String(id)}`);
  return Number(m[1]);
}

/**
 * Runs the lab server's CLI (`server/bin.mjs args`) to its exit, or kills it after 15 s (a hang); resolves with its
 * exit code and stderr. `configHome` stands in for ~/.config, so a test never touches the real token.
 */
export function runLab(
  args: string[],
  configHome: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['server/bin.mjs', ...args], {
      cwd: new URL('../../', import.meta.url).pathname,
      env: { ...process.env, XDG_CONFIG_HOME: configHome, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

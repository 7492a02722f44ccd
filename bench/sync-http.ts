/**
 * HTTP for the sync bench (sync.ts): one call with raw byte counts and the server's Server-Timing, and a new
 * device's first sync of an account (every pull page, plain and gzip).
 */
import { request, type Agent } from 'node:http';

/** Connections the server reset under load (each retried once, and counted in the report). */
export const resets = { n: 0 };

/** One HTTP call with raw byte counts (undici's fetch would decompress out of sight); a reset is retried once. */
export async function call(agent: Agent, url: string, method: string, token: string, body?: string, gzip = false) {
  try {
    return await call1(agent, url, method, token, body, gzip);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') throw e;
    resets.n++;
    return call1(agent, url, method, token, body, gzip);
  }
}

function call1(agent: Agent, url: string, method: string, token: string, body?: string, gzip = false) {
  return new Promise<{
    status: number;
    bytes: number;
    text: string;
    serverMs: number;
    phases: Record<string, number>;
    ms: number;
  }>((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const timing = /dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
          const phases = Object.fromEntries(
            [...String(res.headers['server-timing'] ?? '').matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [
              m[1]!,
              Number(m[2]),
            ]),
          );
          resolve({
            status: res.statusCode ?? 0,
            bytes: raw.length,
            text: gzip ? '' : raw.toString(),
            serverMs: timing ? Number(timing[1]) : NaN,
            phases,
            ms: performance.now() - t0,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What a new device's first sync of one account cost. */
export interface FirstSync {
  ms: number;
  /** Server-Timing, summed over the pages. */
  server: number;
  bytes: number;
  gz: number;
  items: number;
}

/**
 * A new device's first sync of each account of `tokens` (every page of 5,000, plain and again with gzip): the
 * run of median client time.
 */
export async function firstSync(agent: Agent, url: string, tokens: readonly string[]): Promise<FirstSync> {
  const runs: FirstSync[] = [];
  for (const token of tokens) {
    let after = '0';
    const run = { ms: 0, server: 0, bytes: 0, gz: 0, items: 0 };
    for (;;) {
      const r = await call(agent, `${url}/v1/pull?after=${after}&limit=5000`, 'GET', token);
      const z = await call(agent, `${url}/v1/pull?after=${after}&limit=5000`, 'GET', token, undefined, true);
      run.ms += r.ms;
      run.server += r.serverMs;
      run.bytes += r.bytes;
      run.gz += z.bytes;
      const page = JSON.parse(r.text) as { cursor: string; more: boolean; items: unknown[] };
      run.items += page.items.length;
      after = page.cursor;
      if (!page.more) break;
    }
    runs.push(run);
  }
  return runs.sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
}

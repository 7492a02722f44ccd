/**
 * `GET` and `POST /api/sim/knobs`: read and change the running simulated scenario, so a lab page in
 * server simulation applies a step's fix (say `{ "knobs": { "numWorkers": 8 } }`) without a restart.
 * Token-protected like every API route (createServer mounts the guards first). A real source (NVML)
 * or a replay has no knobs: 409 with what to do.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { jsonError } from './guards.ts';
import type { MetricSource } from './sources/types.ts';

/** Reads a small JSON body: the parsed value, or the 4xx answer to send. */
export async function readJsonBody(c: Context): Promise<{ body: unknown } | Response> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
    return jsonError(c, 415, 'Send JSON with Content-Type: application/json.');
  try {
    return { body: JSON.parse(await c.req.text()) as unknown };
  } catch {
    return jsonError(c, 400, 'Body is not valid JSON.');
  }
}

/** Mounts the routes; `limit` bounds the body (the server's bodyLimit middleware). */
export function mountSimRoutes(
  app: Hono<{ Bindings: HttpBindings }>,
  source: MetricSource,
  limit: MiddlewareHandler,
): void {
  const state = () => ({ source: source.id, scenario: source.sim?.scenario, knobs: source.sim?.knobs() });
  const refuse = (c: Context): Response =>
    jsonError(
      c,
      409,
      source.id.startsWith('replay:')
        ? `This lab server replays a recording (${source.id}): it has no knobs to turn. Start it with --source sim:<scenario> to change a simulated scenario.`
        : `This lab server reads a real GPU (${source.id}): apply the fix in your own workload and watch it here. Knobs exist only with --source sim:<scenario>.`,
    );
  app.get('/api/sim/knobs', (c) => (source.sim ? c.json(state()) : refuse(c)));
  app.post('/api/sim/knobs', limit, async (c) => {
    if (!source.sim) return refuse(c);
    const read = await readJsonBody(c);
    if (read instanceof Response) return read;
    const body = read.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return jsonError(c, 422, 'Send an object: { "knobs": { "<knob>": <number> } }, optionally with "scenario".');
    const { scenario, knobs, ...rest } = body as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0)
      return jsonError(
        c,
        422,
        `Unknown field ${extra.map((k) => `"${k}"`).join(', ')}: send "knobs" and/or "scenario".`,
      );
    if (scenario !== undefined && typeof scenario !== 'string')
      return jsonError(c, 422, '"scenario" must be a scenario id, e.g. "data-starved".');
    if (knobs !== undefined && (typeof knobs !== 'object' || knobs === null || Array.isArray(knobs)))
      return jsonError(c, 422, '"knobs" must be an object of knob → number, e.g. { "numWorkers": 8 }.');
    try {
      source.sim.set({
        ...(scenario === undefined ? {} : { scenario }),
        ...(knobs === undefined ? {} : { knobs: knobs as Record<string, unknown> }),
      });
    } catch (e) {
      return jsonError(c, 422, e instanceof Error ? e.message : String(e));
    }
    return c.json({ ok: true, ...state() });
  });
}

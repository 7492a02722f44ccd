/** POST /api/sim/knobs: a lab page applies a step's fix to the server's simulated scenario, no restart. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedKnobs, sampleAt } from '../../src/lib/sim/index.ts';
import { createReplaySource } from '../../server/sources/replay.ts';
import { createNvmlSource } from '../../server/sources/nvml.ts';
import { createSimSource } from '../../server/sources/sim.ts';
import { buildStubs, type StubKit } from '../fixtures/nvml-stub/build.ts';
import { listen, type Running } from './helpers.ts';

const T0 = Date.parse('2026-03-29T01:30:00+01:00');
const SEED = 'knobs-test';

let kit: StubKit;
beforeAll(() => {
  kit = buildStubs();
});
afterAll(() => kit?.dispose());

async function post(s: Running, body: unknown, token = s.token): Promise<{ status: number; json: any }> {
  const res = await fetch(`${s.base}/api/sim/knobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('POST /api/sim/knobs', () => {
  test('the next tick reflects the new knobs; GET shows them', async () => {
    let t = T0;
    const source = createSimSource({ spec: 'data-starved', startMs: T0, seed: SEED });
    const s = await listen({ source, autoStart: false, now: () => (t += 500) });
    try {
      const before = s.lab.sampler.tick().message;
      expect(before.gpus).toEqual(sampleAt('data-starved', 500, SEED, {}).gpus);
      const knobs = fixedKnobs('data-starved'); // the step's fix, e.g. { numWorkers: 8 }
      const res = await post(s, { knobs });
      expect(res).toMatchObject({ status: 200, json: { ok: true, scenario: 'data-starved', knobs } });
      const after = s.lab.sampler.tick().message;
      expect(after.gpus).toEqual(sampleAt('data-starved', 1000, SEED, knobs).gpus);
      expect(after.gpus[0]!.gpuUtilPct).not.toBe(sampleAt('data-starved', 1000, SEED, {}).gpus[0]!.gpuUtilPct);
      const got = await fetch(`${s.base}/api/sim/knobs?token=${s.token}`);
      expect(await got.json()).toEqual({ source: 'sim:data-starved', scenario: 'data-starved', knobs });
    } finally {
      await s.lab.close();
    }
  });

  test('a scenario can be switched too: it starts at its beginning, with its own GPUs', async () => {
    let t = T0;
    const source = createSimSource({ spec: 'idle', startMs: T0, seed: SEED });
    const s = await listen({ source, autoStart: false, now: () => (t += 500) });
    try {
      s.lab.sampler.tick();
      const res = await post(s, { scenario: 'straggler', knobs: { balanced: 1 } });
      expect(res.json).toMatchObject({ source: 'sim:straggler', scenario: 'straggler', knobs: { balanced: 1 } });
      const m = s.lab.sampler.tick().message;
      expect(m.source).toBe('sim:straggler');
      expect(m.gpus).toEqual(sampleAt('straggler', 500, SEED, { balanced: 1 }).gpus); // timed from the tick before the switch
    } finally {
      await s.lab.close();
    }
  });

  test('needs the token, and bad bodies get a 4xx that names the fix', async () => {
    const s = await listen({ source: createSimSource({ spec: 'data-starved', seed: SEED }), autoStart: false });
    try {
      expect((await post(s, { knobs: { numWorkers: 8 } }, 'x'.repeat(32))).status).toBe(401);
      const unknown = await post(s, { knobs: { workers: 8 } });
      expect(unknown).toMatchObject({
        status: 422,
        json: { error: expect.stringMatching(/no knob "workers"; knobs: numWorkers/) },
      });
      const range = await post(s, { knobs: { numWorkers: 1000 } });
      expect(range).toMatchObject({
        status: 422,
        json: { error: expect.stringMatching(/from 0 to \d+ \(the fix is \d+\)/) },
      });
      expect((await post(s, { knobs: { numWorkers: '8' } })).status).toBe(422);
      expect((await post(s, { scenario: 'nope' })).json.error).toMatch(/Use one of: idle, data-starved/);
      expect((await post(s, { knob: 1 })).json.error).toMatch(/Unknown field "knob"/);
      expect((await post(s, '{not json')).status).toBe(400);
      expect((await post(s, [1])).status).toBe(422);
      const knobs = await fetch(`${s.base}/api/sim/knobs?token=${s.token}`);
      expect(((await knobs.json()) as { knobs: unknown }).knobs).toEqual({ numWorkers: 0 }); // nothing bad was applied
    } finally {
      await s.lab.close();
    }
  });

  test('a real GPU (NVML) or a replay answers 409 with what to do', async () => {
    const nvml = createNvmlSource({ libraryPath: kit.withConfig({ gpus: 1 }), log: () => {} });
    const s = await listen({ source: nvml, autoStart: false });
    try {
      const res = await post(s, { knobs: { numWorkers: 8 } });
      expect(res.status).toBe(409);
      expect(res.json.error).toMatch(/reads a real GPU \(nvml\).*--source sim:<scenario>/);
      expect((await fetch(`${s.base}/api/sim/knobs?token=${s.token}`)).status).toBe(409);
    } finally {
      await s.lab.close();
    }
    const dir = mkdtempSync(join(tmpdir(), 'knobs-'));
    try {
      const file = join(dir, 'run.ndjson');
      const reading = createSimSource({ spec: 'idle', seed: SEED }).read(T0);
      writeFileSync(
        file,
        `${JSON.stringify({ seq: 1, sampledAtMs: T0, source: 'nvml', simulated: false, reason: null, ...reading })}\n`,
      );
      const r = await listen({ source: createReplaySource(file), autoStart: false });
      try {
        expect((await post(r, { knobs: {} })).json.error).toMatch(/replays a recording/);
      } finally {
        await r.lab.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

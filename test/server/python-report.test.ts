import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { StreamMessageSchema } from '../../src/protocol/metrics.ts';
import { createSimSource } from '../../server/sources/sim.ts';
import { listen } from './helpers.ts';

/** A training loop on a fake clock: the loader takes 100 ms a batch, the step 20 ms. */
const LOOP = `
import sys
sys.path.insert(0, "python")
from saturate_report import Reporter
t = [0.0]
rep = Reporter(sys.argv[1], label="timed-loader", interval_s=0.2, clock=lambda: t[0])
def loader():
    for i in range(6):
        t[0] += 0.1
        yield i
for batch in rep.timed(loader()):
    t[0] += 0.02
    rep.step(samples=1)
`;

describe('python/saturate_report.py', () => {
  test('Reporter.timed reports the share of time the loop waited for data, and it joins the stream', async () => {
    const s = await listen({ source: createSimSource({ spec: 'idle', seed: 'py' }), autoStart: false });
    try {
      // Async: the server answers in this process, so the loop must not block it.
      const run = await promisify(execFile)('python3', ['-c', LOOP, `${s.base}/?token=${s.token}`]);
      expect(run.stderr).toBe('');
      s.lab.sampler.tick();
      const res = await fetch(`${s.base}/api/snapshot`, { headers: { authorization: `Bearer ${s.token}` } });
      const snap = StreamMessageSchema.parse(await res.json());
      expect(snap.throughput?.label).toBe('timed-loader');
      // The last report covers 0.24 s of which 0.2 s were spent in the loader's next().
      expect(snap.throughput?.dataWaitFraction).toBeCloseTo(0.2 / 0.24, 2);
    } finally {
      await s.lab.close();
    }
  });

  test('a data-wait fraction outside 0–1 is refused with a message that says what it must be', () => {
    const bad = spawnSync(
      'python3',
      [
        '-c',
        'import sys; sys.path.insert(0, "python"); from saturate_report import Reporter; Reporter("http://127.0.0.1:9/?token=x").post(samples_per_sec=1, data_wait_fraction=1.5)',
      ],
      { encoding: 'utf8' },
    );
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/data_wait_fraction is a share of time between 0 and 1, got 1.5/);
  });
});

/**
 * The lab server's Prometheus source reads up to now, the current second included: a node whose first scrape lands
 * earlier in the second a newcomer opens /fleet/ in is in the first report (which is cached for 5 s), not left out
 * of it. `npm run demo:fleet` printed its URL within that second on a fast machine, and the first report listed 4 or
 * 8 of its 12 GPUs. Scrapes placed at exact milliseconds through Prometheus's remote write (independent/remote-write.ts).
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { openPrometheusSource, type PrometheusSource } from '../../server/fleet/source.ts';
import { INDEPENDENT_END_S } from './independent/cluster.ts';
import { planCluster } from './independent/plan.ts';
import { labelObject } from './independent/rules-import.ts';
import { encodeLabels, remoteWrite, WriteRequest } from './independent/remote-write.ts';
import { gpuLabels } from './independent/write.ts';
import { PROMETHEUS_TEST_LIMITS, startEngine, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const S = INDEPENDENT_END_S;
let prom: RunningPrometheus;
let src: PrometheusSource;

beforeAll(async () => {
  prom = await startEngine('prometheus', { args: ['--web.enable-remote-write-receiver'] });
  const [early, late] = planCluster(16, 3_600);
  const req = new WriteRequest();
  const util = (h: typeof early, gi: number) =>
    encodeLabels({ ...labelObject(gpuLabels(h!, gi)), __name__: 'DCGM_FI_DEV_GPU_UTIL' });
  // One host scraped for a minute; the other scraped for the first time 300 ms into the current second.
  req.add(util(early, 0), [(S - 60) * 1000, (S - 30) * 1000, S * 1000], [97, 98, 99], 3);
  req.add(util(late, 0), [S * 1000 + 300], [42], 1);
  await remoteWrite(prom.url, req);
  src = await openPrometheusSource({ url: prom.url, now: () => S * 1000 + 600 });
});

afterAll(async () => {
  src?.close();
  await prom?.stop();
});

test("the lab console's GPUs include a host first scraped earlier in this second", () => {
  expect(src.devices()).toHaveLength(2);
  const read = src.read(S * 1000 + 600).gpus.map((g) => g.gpuUtilPct);
  expect(read.sort()).toEqual([42, 99]);
});

test("the /fleet/ report's first read lists it too", async () => {
  const report = await src.fleet(3_600, null);
  expect(report.gpus).toHaveLength(2);
  expect(report.gpus.map((g) => g.hostname).sort()).toEqual(
    planCluster(16, 3_600)
      .slice(0, 2)
      .map((h) => h.hostname)
      .sort(),
  );
});

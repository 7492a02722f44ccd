/**
 * Clock event reasons through the recording rules, recorded only while active (recording-rules.ts RULE_REASON) and
 * read per segment as a share of the minutes the mask was read (rules/whole-run.ts), against the real Prometheus: a
 * simulated cluster with a throttled host (its HW slowdown comes and goes), a host throttled until mid-window and
 * computing after, a computing host whose mask never sets a reason, and one that sends no mask at all. Per segment and
 * GPU, the rules path says what the raw path says: each reason's share, "no reason active" where the mask reads 0,
 * and "not exported" where there is no mask.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { audit, type AuditReport } from '../../server/fleet/audit.ts';
import { gpuMatch, nodeNamesAt, type FleetHost } from '../../server/fleet/collect.ts';
import { createPrometheusClient, type PrometheusClient } from '../../server/fleet/prometheus-api.ts';
import { targetBatches } from '../../server/fleet/batches.ts';
import { segmentPlan } from '../../server/fleet/segments.ts';
import { steadyWindow } from '../../server/fleet/steady.ts';
import { windowCoverage } from '../../server/fleet/rules/coverage.ts';
import { windowSegments } from '../../server/fleet/rules/rules-path.ts';
import { RULE_MASK, RULE_REASON } from '../../server/fleet/rules/names.ts';
import { fiveMinuteRulesYaml } from '../../server/fleet/rules/recording-rules.ts';
import type { SimHost } from './cluster.ts';
import { prometheusWithRules, PROMETHEUS_TEST_LIMITS, type RunningPrometheus } from './prometheus-harness.ts';

vi.setConfig(PROMETHEUS_TEST_LIMITS);

const HOUR = 3600;
const END_S = Date.UTC(2026, 10, 30, 12, 0, 0) / 1000;
/** Throttled until 1 h 40 min into the 3 h window: mid-segment (segments of 6 min 26 s). */
const THROTTLED_UNTIL_MS = (100 * 60 + 13) * 1000;
const HOSTS: SimHost[] = [
  { hostname: 'throttled', phases: [{ fromMs: 0, scenario: 'throttled' }] },
  {
    hostname: 'throttled-then-computing',
    phases: [
      { fromMs: 0, scenario: 'throttled' },
      { fromMs: THROTTLED_UNTIL_MS, scenario: 'compute-bound' },
    ],
  },
  { hostname: 'computing', phases: [{ fromMs: 0, scenario: 'compute-bound' }] },
  { hostname: 'no-mask', phases: [{ fromMs: 0, scenario: 'compute-bound' }], noMask: true },
];
let prom: RunningPrometheus;
let client: PrometheusClient;

beforeAll(async () => {
  prom = await prometheusWithRules({
    hosts: HOSTS,
    fromS: END_S - 3 * HOUR,
    endS: END_S,
    rulesFromS: END_S - 3 * HOUR,
    moreRules: [fiveMinuteRulesYaml()],
  });
  client = createPrometheusClient({ url: prom.url });
}, 600_000);

afterAll(async () => {
  await prom?.stop();
});

/** Per GPU (`host/gpu`) and segment end (ms): its reasons' shares, or null where the reasons are not exported. */
type Shares = Map<string, Record<string, number> | null>;

/** The window's segments read through the rules (`rules`) or raw series, as the audit reads them. */
async function segmentShares(windowS: number, rules: boolean): Promise<{ shares: Shares; hosts: FleetHost[] }> {
  const plan = segmentPlan(windowS, 15);
  const { runs } = await windowSegments(client, {
    selector: undefined,
    endS: END_S,
    plan,
    scrapeS: 15,
    nodeNames: nodeNamesAt(client, END_S),
    batches: targetBatches(client, gpuMatch(undefined), END_S - windowS, END_S),
    coverage: windowCoverage(client, '', plan, END_S, rules),
  });
  expect(runs.some((r) => r.fromRules)).toBe(rules);
  const shares: Shares = new Map();
  const hosts = runs.flatMap((r) => r.hosts);
  for (const h of hosts)
    h.messages.forEach((m, mi) =>
      h.gpus.forEach((g, gi) =>
        shares.set(`${g.hostname}/${g.gpu}@${m.sampledAtMs}`, h.reasonShares?.[mi]?.get(gi) ?? null),
      ),
    );
  return { shares, hosts };
}

/** Every reason's share in `a` within `tolerance` of `b`'s, for the same GPUs and segments; null where `b` has null. */
function expectSameShares(a: Shares, b: Shares, tolerance: number): void {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [key, want] of b) {
    const got = a.get(key)!;
    if (want === null) {
      expect(got, key).toBeNull();
      continue;
    }
    expect(got, key).not.toBeNull();
    for (const reason of new Set([...Object.keys(want), ...Object.keys(got!)]))
      expect(Math.abs((got![reason] ?? 0) - (want[reason] ?? 0)), `${key} ${reason}`).toBeLessThanOrEqual(tolerance);
  }
}

const of = (shares: Shares, host: string) => [...shares].filter(([k]) => k.startsWith(`${host}/`)).map(([, v]) => v);

describe('clock event reasons through the recording rules', () => {
  test('only active reasons are recorded: a GPU whose mask reads 0 has no reason series, only mask minutes', async () => {
    const count = async (expr: string) => (await client.query(expr, END_S))[0]?.value ?? 0;
    expect(await count(`count(count_over_time(${RULE_REASON}{hostname="computing"}[3h]))`)).toBe(0);
    expect(await count(`count(count_over_time(${RULE_MASK}{hostname="computing"}[3h]))`)).toBe(8);
    expect(await count(`count(count_over_time(${RULE_REASON}{hostname="throttled"}[3h]))`)).toBeGreaterThan(8);
    expect(await count(`count(count_over_time(${RULE_MASK}{hostname="no-mask"}[3h]))`)).toBe(0);
  });

  for (const [what, windowS] of [
    ['1-minute rules (3 h)', 3 * HOUR],
    ['5-minute rules (10 h)', 10 * HOUR],
  ] as const)
    test(`each segment's reason shares are the raw series', through the ${what}`, async () => {
      const [rules, raw] = [await segmentShares(windowS, true), await segmentShares(windowS, false)];
      // Raw series read the mask at each 30 s scrape over the segment; the rules at 10 s within each minute (closed
      // ranges: a boundary reading counts twice), and their points end up to one interval (60 or 300 s) off a
      // segment's edges, which moves that much of a reason that starts or stops there: within 0.05 + interval ÷ segment.
      const plan = segmentPlan(windowS, 15);
      expectSameShares(rules.shares, raw.shares, 0.05 + (windowS > 9 * HOUR ? 300 : 60) / (plan.segmentMs / 1000));
      // The throttled host: its thermal slowdown throughout, its HW slowdown in part of some segments only.
      const throttled = of(rules.shares, 'throttled');
      expect(throttled.every((s) => (s?.['SwThermalSlowdown'] ?? 0) > 0.95)).toBe(true);
      expect(throttled.some((s) => (s?.['HwSlowdown'] ?? 0) > 0.05 && (s?.['HwSlowdown'] ?? 1) < 0.95)).toBe(true);
      // Throttled until mid-segment: that segment's share is the part of it throttled, not 1 (a mean of the minutes
      // recorded would be 1), and after it no reason at all, read as such.
      const changing = of(rules.shares, 'throttled-then-computing');
      const thermal = (s: Record<string, number> | null) => s?.['SwThermalSlowdown'] ?? 0;
      expect(changing.some((s) => thermal(s) > 0.05 && thermal(s) < 0.95)).toBe(true);
      expect(changing.at(-1)).toEqual({});
      // A mask that reads 0: every reason at 0, a reading; no mask: not exported, as raw series say.
      expect(of(rules.shares, 'computing').every((s) => s !== null && Object.keys(s).length === 0)).toBe(true);
      expect(of(rules.shares, 'no-mask').every((s) => s === null)).toBe(true);
      // What the engine then reads for a segment: no reasons for the GPU without a mask, none active for the other.
      const readings = (host: string) => {
        const h = rules.hosts.find((x) => x.hostname === host && x.messages.length)!;
        const i = h.messages.length - 1;
        return steadyWindow(h.messages[i]!, 60, h.reasonShares?.[i], h.utilSpreads?.[i])[0]!.gpus[0]!.clockEventReasons;
      };
      expect(readings('no-mask')).toBeNull();
      expect(readings('computing')).toEqual([]);
    });

  test('the audit through the rules counts the same throttled hours as raw, and the mask-less GPUs as computing', async () => {
    const run = (recordingRules: boolean) =>
      audit(client, { windowS: 3 * HOUR, endS: END_S, pricePerGpuHour: null, recordingRules });
    const [rules, raw] = [await run(true), await run(false)];
    expect(rules.window.path).toBe('recording-rules');
    expect(rules.window.rulesOutdated).toBe(false);
    const hours = (r: AuditReport, host: string, kind: 'throttled' | 'compute-bound') =>
      r.gpus.filter((g) => g.hostname === host).reduce((a, g) => a + (g.hours[kind] ?? 0), 0);
    for (const host of ['throttled', 'throttled-then-computing', 'no-mask'])
      for (const kind of ['throttled', 'compute-bound'] as const)
        expect(Math.abs(hours(rules, host, kind) - hours(raw, host, kind)), `${host} ${kind}`).toBeLessThanOrEqual(0.3);
    expect(hours(rules, 'throttled', 'throttled')).toBeCloseTo(24, 3);
    expect(hours(rules, 'no-mask', 'compute-bound')).toBeCloseTo(24, 3);
  });
});

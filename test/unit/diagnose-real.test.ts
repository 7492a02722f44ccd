import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { GPU_METRIC_FIELDS } from '../../src/protocol/metrics.ts';
import { BOTTLENECK_KINDS, diagnose } from '../../src/lib/diagnose/index.ts';
import { parseRecordingLine } from '../../server/sources/replay.ts';
import { toNdjson } from '../../src/lib/lab/run.ts';
import {
  FLEET,
  caseMessages,
  caseProfile,
  fleetMessages,
  loadRealCases,
  type RealCase,
} from '../fixtures/real/convert.ts';
import { confusion, outcome, perCause, tally, type Scored } from '../fixtures/score.ts';

const cases = loadRealCases();
const score = (c: RealCase, fleet = false): Scored => ({
  id: c.id,
  truth: c.truth,
  alsoRight: c.alsoRight,
  got: fleet ? diagnose(fleetMessages(c), FLEET.windowS) : diagnose(caseMessages(c), undefined, [], [caseProfile(c)]),
});

/** Every number a case gives, with where it sits. */
function numbersOf(c: RealCase): [string, number][] {
  const out: [string, number][] = [];
  const walk = (path: string, v: unknown): void => {
    if (typeof v === 'number') out.push([path, v]);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(`${path}[${i}]`, x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(`${path}.${k}`, x);
  };
  c.gpus.forEach((g, i) => walk(`gpus[${i}]`, { ...g, processes: undefined }));
  walk('throughput', c.throughput);
  walk('profile', c.profile);
  return out;
}

describe('the real-telemetry benchmark (test/fixtures/real)', () => {
  test('has at least 25 cases from public threads, each with a URL, the posted lines and a cause', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    for (const c of cases) expect(c.cause.length, c.id).toBeGreaterThan(20);
  });

  test('covers every verdict kind; REJECTED.md says what the straggler cases still lack', () => {
    const covered = new Set(cases.flatMap((c) => [c.truth]));
    for (const k of BOTTLENECK_KINDS.filter((x) => x !== 'cant-tell')) expect(covered, k).toContain(k);
    expect(readFileSync(new URL('../fixtures/real/REJECTED.md', import.meta.url), 'utf8')).toMatch(
      /Straggler: .*no public thread gives per-rank SM or tensor activity/s,
    );
  });

  test('never invents a number: each one appears in the posted quote or in the derived/notes lines', () => {
    const digits = (t: string): string => t.replace(/(\d),(\d)/g, '$1$2');
    for (const c of cases) {
      const text = digits(`${c.posted}\n${c.derived ?? ''}\n${c.notes ?? ''}`);
      for (const [path, v] of numbersOf(c)) {
        const re = new RegExp(`(?<![\\d.])${String(v).replace('.', '\\.')}(?![\\d])`);
        expect(re.test(text), `${c.id} ${path} = ${v} is not in posted/derived/notes`).toBe(true);
      }
    }
  });

  test('converts to valid stream messages: what the post lacks is null with a reason, snapshots say so', () => {
    for (const c of cases) {
      const msgs = caseMessages(c);
      expect(msgs.length).toBeGreaterThan(2);
      for (const g of msgs[0]?.gpus ?? [])
        for (const f of GPU_METRIC_FIELDS) if (g[f] === null) expect(g.nullReasons[f], `${c.id} ${f}`).toBeTruthy();
      if (c.sampling !== 'series') expect(msgs[0]?.reason).toMatch(/repeated over the window \(not a time series\)/);
    }
  });

  test('replays through the lab server’s replay parser with the new fields intact', () => {
    const parseRecording = (ndjson: string) => ({
      messages: ndjson
        .split('\n')
        .filter(Boolean)
        .map(parseRecordingLine)
        .flatMap((l) => ('message' in l ? [l.message] : [])),
    });
    const c = cases.find((x) => x.id === 'openclip-681-data-wait') as RealCase;
    const { messages } = parseRecording(toNdjson(caseMessages(c)));
    expect(messages[0]?.throughput?.dataWaitFraction).toBe(0.963);
    const hbm = cases.find((x) => x.id === 'bradrlaw-15-v100-busy') as RealCase;
    expect(parseRecording(toNdjson(caseMessages(hbm))).messages[0]?.gpus[0]?.memTemperatureC).toBe(78);
  });
});

describe('diagnose on real telemetry', () => {
  const results = cases.map((c) => score(c));
  const fleet = cases.map((c) => score(c, true));

  test('is never wrong with high confidence, and wrong on at most 10% of cases', () => {
    const t = tally(results);
    const report = `${confusion(results, 'real set')}\n${perCause(results)}`;
    expect(t.wrongHigh, report).toBe(0);
    expect(t.wrong / t.n, report).toBeLessThanOrEqual(0.1);
  });

  test('at fleet resolution (30 s, no host CPU, no throughput): never wrong with high confidence', () => {
    const t = tally(fleet);
    expect(t.wrongHigh, confusion(fleet, 'real set, fleet resolution')).toBe(0);
    expect(t.wrong / t.n).toBeLessThanOrEqual(0.1);
  });

  test("profiler evidence decides cases the counters cannot: each one right or can't tell, never wrong", () => {
    const profiled = cases.filter((c) => c.profile);
    expect(profiled.length).toBeGreaterThanOrEqual(4);
    const decided = profiled.filter((c) => outcome(score(c)) === 'right');
    for (const c of profiled) expect(outcome(score(c)), c.id).not.toBe('wrong');
    // Each one the profile decided was "can't tell" from its counters alone.
    for (const c of decided) expect(diagnose(caseMessages(c)).kind, c.id).toBe('cant-tell');
    expect(decided.length).toBeGreaterThanOrEqual(3);
  });

  test("every can't tell names the reading that would decide it", () => {
    for (const r of [...results, ...fleet].filter((x) => x.got.kind === 'cant-tell'))
      expect(r.got.decide, r.id).toMatch(/^[A-Z][^:]{2,100}:/);
  });

  test('high confidence only where the deciding readings are in the post', () => {
    for (const r of results.filter((x) => x.got.confidence === 'high')) {
      expect(outcome(r), r.id).toBe('right');
      const c = cases.find((x) => x.id === r.id) as RealCase;
      // The GPUs the verdict names must carry its deciding reading.
      const named = r.got.gpus.map((i) => c.gpus[i]);
      const decisive =
        r.got.kind === 'throttled'
          ? named.length > 0 && named.every((g) => (g?.clockEventReasons?.length ?? 0) > 0 || g?.reasonCounts)
          : r.got.kind === 'data-starvation'
            ? c.throughput?.dataWaitFraction !== undefined || c.profile?.dataLoaderMsPerStep !== undefined
            : true;
      expect(decisive, `${r.id}: ${r.got.kind} at high confidence without its deciding reading`).toBe(true);
    }
  });
});

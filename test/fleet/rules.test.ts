/**
 * The Prometheus rules shipped in deploy/prometheus/, checked and unit-tested by the real promtool. The per-GPU state
 * rules are run on readings at each of the engine's thresholds and on either side of it, and must say what the
 * engine (src/lib/diagnose/) says on the same readings: a threshold changed on one side and not the other fails here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { diagnoseGpu } from '../../src/lib/diagnose/index.ts';
import { gpuStats } from '../../src/lib/diagnose/stats.ts';
import { DCGM_SERIES } from '../../src/protocol/dcgm.ts';
import { clockEventReasonsFromMask, emptyGpuSample, type StreamMessage } from '../../src/protocol/metrics.ts';
import { REASON_STEP_S, RULE_STATES, rulesYaml } from '../../server/fleet/rules/recording-rules.ts';
import {
  LIMITING_REASONS,
  MASK_NAMES,
  reasonSeries,
  RULE_MASK_5M,
  RULE_MEANS_5M,
  RULE_REASON_5M,
  RULE_STATE,
  RULE_UTIL_MAX_5M,
  RULE_UTIL_MIN_5M,
  SERIES_LABEL,
} from '../../server/fleet/rules/names.ts';

const DIR = join(import.meta.dirname, '..', '..', 'deploy', 'prometheus');
const promtool = (args: string[], cwd = DIR) => spawnSync('promtool', args, { cwd, encoding: 'utf8' });
/** The rules file's groups in file order: the order each reads the ones before it. */
const GROUP_ORDER = [...rulesYaml().matchAll(/^ {2}- name: (\S+)$/gm)].map((m) => m[1]!);

/** One GPU's dcgm-exporter readings: each series a value per scrape index (REASON_STEP_S apart), or a constant. */
type Readings = Record<string, number | ((i: number) => number)>;
const SCRAPES = 61; // 0 … 10 min; the rules' minute at 10 min reads scrapes 54 … 60
const MINUTE = Array.from({ length: 7 }, (_, k) => 54 + k);
const at = (r: Readings, name: string, i: number): number | undefined => {
  const v = r[name];
  return v === undefined ? undefined : typeof v === 'number' ? v : v(i);
};

/** What the engine says about one GPU's minute, read as the fleet reads dcgm-exporter (no processes, no loop). */
function engineState(r: Readings, maskName: string): string {
  const messages: StreamMessage[] = MINUTE.map((i) => {
    const g = emptyGpuSample({ index: 0, uuid: 'GPU-edge', name: 'NVIDIA H100 80GB HBM3' });
    for (const s of DCGM_SERIES) {
      const v = at(r, s.name, i);
      if (s.field && v !== undefined) (g as unknown as Record<string, number>)[s.field] = v * s.toField;
    }
    const mask = at(r, maskName, i);
    if (mask !== undefined && mask < 0x7ffffff0) g.clockEventReasons = clockEventReasonsFromMask(mask);
    return {
      seq: i,
      sampledAtMs: i * REASON_STEP_S * 1000,
      source: 'prometheus',
      simulated: false,
      reason: null,
      gpus: [g],
      host: null,
      throughput: null,
    };
  });
  const kind = diagnoseGpu(gpuStats(messages, 0)).kind;
  return (RULE_STATES as readonly string[]).includes(kind) ? kind : 'other';
}

/** GPUs at and around every threshold the state rules share with the engine. */
function edgeGpus(): { readings: Readings; old: boolean }[] {
  const out: { readings: Readings; old: boolean }[] = [];
  const once = (v: number) => (i: number) => (i === 56 ? v : 0);
  // Idle or idle but allocated: mean GPU-Util under 5 (as rounded), its 90th percentile under 15, 1 GiB held.
  for (const util of [0, 4, 4.4, 4.6, 5, once(14), once(15)])
    for (const fb of [0, 972, 973, 1024, undefined])
      out.push({
        readings: { DCGM_FI_DEV_GPU_UTIL: util, ...(fb === undefined ? {} : { DCGM_FI_DEV_FB_USED: fb }) },
        old: false,
      });
  // Busy: SM activity, tensor, DRAM and memory activity around their thresholds, each also not exported.
  for (const util of [84, 84.6, 85])
    for (const sm of [undefined, 0.09, 0.1, 0.49, 0.495, 0.5])
      for (const tensor of [undefined, 0.24, 0.25, 0.3])
        for (const dram of [undefined, 0.01, 0.02, 0.6])
          for (const copy of [1, 2]) {
            const r: Readings = {
              DCGM_FI_DEV_GPU_UTIL: util,
              DCGM_FI_DEV_FB_USED: 40_000,
              DCGM_FI_DEV_MEM_COPY_UTIL: copy,
            };
            if (sm !== undefined) r['DCGM_FI_PROF_SM_ACTIVE'] = sm;
            if (tensor !== undefined) r['DCGM_FI_PROF_PIPE_TENSOR_ACTIVE'] = tensor;
            if (dram !== undefined) r['DCGM_FI_PROF_DRAM_ACTIVE'] = dram;
            out.push({ readings: r, old: false });
          }
  out.push({
    readings: { DCGM_FI_DEV_GPU_UTIL: 100, DCGM_FI_PROF_DRAM_ACTIVE: 0.59, DCGM_FI_PROF_SM_ACTIVE: 0.6 },
    old: false,
  });
  // Clock event reasons: SwPowerCap (4) or HwSlowdown (8) in k of the minute's 7 scrapes, under both mask names;
  // two reasons each under the share in different scrapes; GpuIdle alone; DCGM's blank.
  for (const old of [false, true]) {
    const busy: Readings = { DCGM_FI_DEV_GPU_UTIL: 100, DCGM_FI_DEV_FB_USED: 40_000, DCGM_FI_PROF_SM_ACTIVE: 0.9 };
    const name = old ? 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS' : 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS';
    for (const bit of [4, 8])
      for (let k = 0; k <= 7; k++) out.push({ readings: { ...busy, [name]: (i) => (i % 7 < k ? bit : 0) }, old });
    out.push({ readings: { ...busy, [name]: (i) => (i % 7 < 2 ? 4 : i % 7 < 4 ? 8 : 1) }, old });
    out.push({ readings: { ...busy, [name]: 1 }, old });
    out.push({ readings: { ...busy, [name]: 0x7ffffff0 }, old });
    out.push({ readings: { DCGM_FI_DEV_GPU_UTIL: 0, DCGM_FI_DEV_FB_USED: 0, [name]: 4 }, old });
  }
  return out;
}

const maskOf = (r: Readings) =>
  r['DCGM_FI_DEV_CLOCK_THROTTLE_REASONS'] !== undefined
    ? 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS'
    : 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS';

/**
 * What a GPU's 5-minute rules hold at 10 min, worked out here from its readings (`[rule, saturate_series, value]`,
 * null: no series at all): they read the 1-minute rules' points from 5 to 10 min (a closed range: six of them), each
 * the minute's scrapes. A reason's minutes are the sum of its minutes' shares, recorded only where one is above 0;
 * the mask's, the minutes with a mask reading (DCGM's blank is none).
 */
function fiveMinuteTruth(readings: Readings): [string, string, number | null][] {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const minutes = [5, 6, 7, 8, 9, 10].map((m) => Array.from({ length: 7 }, (_, k) => 6 * (m - 1) + k));
  const out: [string, string, number | null][] = [];
  for (const name of Object.keys(readings)) {
    if (!MASK_NAMES.includes(name as never)) {
      out.push([RULE_MEANS_5M, name, mean(minutes.map((ix) => mean(ix.map((i) => at(readings, name, i)!))))]);
      continue;
    }
    const masks = minutes
      .map((ix) => ix.map((i) => at(readings, name, i)!).filter((m) => m < 0x7ffffff0))
      .filter((ms) => ms.length);
    out.push([RULE_MASK_5M, '', masks.length || null]);
    for (const r of LIMITING_REASONS) {
      const sum = masks.reduce((a, ms) => a + mean(ms.map((m) => (m % (2 * r.bit) >= r.bit ? 1 : 0))), 0);
      out.push([RULE_REASON_5M, reasonSeries(r.name), sum > 0 ? sum : null]);
    }
  }
  const util = minutes.flat().map((i) => at(readings, 'DCGM_FI_DEV_GPU_UTIL', i)!);
  out.push([RULE_UTIL_MIN_5M, 'util:min', Math.min(...util)], [RULE_UTIL_MAX_5M, 'util:max', Math.max(...util)]);
  return out;
}

/** For some GPUs (the idle edges, one busy GPU in 8, every clock reason case), nothing in their 5-minute rules off. */
function fiveMinuteChecks(gpus: { readings: Readings; old: boolean }[], labels: (n: number) => string): string[] {
  return gpus.flatMap((g, n) => {
    if (!(n < 35 || n % 8 === 0 || g.readings['DCGM_FI_DEV_GPU_UTIL'] === 100)) return [];
    const checks = fiveMinuteTruth(g.readings).map(([rule, series, v]) => {
      const sel = `${rule}{${labels(n)},${SERIES_LABEL}="${series}"}`;
      return v === null ? sel : `(abs(${sel} - ${v}) > 1e-6) or absent(${sel})`;
    });
    return [
      `      - expr: ${JSON.stringify(checks.join(' or '))}`,
      '        eval_time: 10m',
      '        exp_samples: []',
    ];
  });
}

describe('deploy/prometheus', () => {
  test('the rules file is what server/fleet/rules/recording-rules.ts writes (node scripts/fleet-rules.ts)', () => {
    expect(readFileSync(join(DIR, 'saturate-rules.yml'), 'utf8')).toBe(rulesYaml());
  });

  test('promtool check rules: the recording rules and the alert are valid', () => {
    const r = promtool(['check', 'rules', 'saturate-rules.yml']);
    expect(r.error, 'promtool is missing: apt-get install prometheus').toBeUndefined();
    // 44 rules (the 1-minute group's with the mask's minutes, the legacy group's, the alert), and the 5-minute group's
    // 5 (the means, the reasons' and the mask's minutes, GPU-Util's least and greatest).
    expect(r.stdout + r.stderr).toContain('SUCCESS: 49 rules found');
    expect(r.status).toBe(0);
  });

  test(
    'promtool test rules: idle, idle but allocated, busy in time only, and the 30-minute alert',
    { timeout: 120_000 },
    () => {
      const r = promtool(['test', 'rules', 'saturate-rules.test.yml']);
      expect(r.stdout + r.stderr).toContain('SUCCESS');
      expect(r.status).toBe(0);
    },
  );

  test('promtool check config: the sample prometheus.yml and the rules it loads', () => {
    const r = promtool(['check', 'config', 'prometheus.yml']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  test(
    "each GPU's 1-minute state is the engine's verdict on the same readings, at every threshold's edge; its 5-minute means are its readings'",
    { timeout: 180_000 },
    () => {
      const gpus = edgeGpus();
      const states = new Set<string>();
      const input: string[] = [];
      const expected: string[] = [];
      const labelsOf = (n: number) => `gpu="${n}",${gpus[n]!.old ? 'Hostname' : 'hostname'}="edge"`;
      gpus.forEach(({ readings }, n) => {
        const labels = labelsOf(n);
        for (const name of Object.keys(readings)) {
          const values = Array.from({ length: SCRAPES }, (_, i) => at(readings, name, i)).join(' ');
          input.push(`      - series: '${name}{${labels}}'\n        values: '${values}'`);
        }
        const state = engineState(readings, maskOf(readings));
        states.add(state);
        expected.push(`          - labels: '${RULE_STATE}{${labels},state="${state}"}'\n            value: 1`);
      });
      // Every state the rules record is reached by some GPU here.
      expect([...states].sort()).toEqual([...RULE_STATES].sort());
      const dir = mkdtempSync(join(tmpdir(), 'saturate-rules-edge-'));
      try {
        writeFileSync(join(dir, 'saturate-rules.yml'), rulesYaml());
        writeFileSync(
          join(dir, 'edge.test.yml'),
          [
            'rule_files: [saturate-rules.yml]',
            'evaluation_interval: 1m',
            // The 5-minute group reads the 1-minute group's series at the same instant: promtool orders groups it is
            // not told the order of as Go's map iteration does, at random, and then the 5-minute means missed their
            // newest minute in about 1 run of 4.
            `group_eval_order: [${GROUP_ORDER.join(', ')}]`,
            'tests:',
            `  - interval: ${REASON_STEP_S}s`,
            '    input_series:',
            ...input,
            '    promql_expr_test:',
            `      - expr: ${RULE_STATE} == 1`,
            '        eval_time: 10m',
            '        exp_samples:',
            ...expected,
            // The 5-minute rules (they read the 1-minute ones) on the same readings, in the same run.
            ...fiveMinuteChecks(gpus, labelsOf),
            '',
          ].join('\n'),
        );
        const r = promtool(['test', 'rules', 'edge.test.yml'], dir);
        expect(r.status, (r.stdout + r.stderr).slice(0, 6000)).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

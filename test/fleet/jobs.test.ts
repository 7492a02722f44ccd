/**
 * Issue 26, item 1: verdicts per job. Straggler and hang are judged among one job's GPUs (its owner, owner.ts),
 * never across jobs that share a host; clock event reasons come first; a job of one GPU is never a straggler or hung
 * by comparison; with dcgm-exporter's default counters (no SM or tensor activity) a job whose every GPU reads ≥ 95%
 * GPU-Util with memory idle at near-idle power is a hang (medium). Pure: five minutes of 15 s scrapes, as the audit
 * reads them, without a Prometheus.
 */
import { describe, expect, test } from 'vitest';
import { verdictsOf } from '../../server/fleet/audit.ts';
import { ownerKey, ownerOfLabels } from '../../server/fleet/owner.ts';
import { steadyWindow } from '../../server/fleet/steady.ts';
import { WASTE_STATES } from '../../src/lib/fleet-view.ts';
import { nearIdleWatts } from '../../src/lib/diagnose/idle-power.ts';
import type { GpuSample } from '../../src/protocol/metrics.ts';
import { windowOf } from '../fixtures/messages.ts';

const GiB = 1024 ** 3;
const LIVE_S = 300;
type Gpu = Partial<GpuSample>;

/** The last five minutes of one host at a 15 s scrape, GPU i reading `gpus[i]`. */
const scrapes = (gpus: readonly Gpu[]) => windowOf(gpus, { n: 21, intervalS: 15 });

/** A job's key from its GPU's labels, as the audit groups it (owner.ts). */
const job = (labels: Record<string, string>, setsPod = false) => ownerKey(ownerOfLabels(labels, setsPod), 'node-1');

const H100 = { name: 'NVIDIA H100 80GB HBM3', powerLimitWatts: 700, memUsedBytes: 60 * GiB };
/** dcgm-exporter's default counters: GPU-Util, memory copy utilisation, power; no DCGM_FI_PROF_*. */
const hungDefault: Gpu = { ...H100, gpuUtilPct: 100, memUtilPct: 0, powerWatts: 98 };
const workingDefault: Gpu = { ...H100, gpuUtilPct: 99, memUtilPct: 35, powerWatts: 610 };
/** With profiling counters: a rank spinning in a collective, and a healthy rank. */
const hungProf: Gpu = { ...hungDefault, smActivePct: 1, tensorActivePct: 0, dramActivePct: 0 };
const workingProf: Gpu = { ...workingDefault, smActivePct: 88, tensorActivePct: 60, dramActivePct: 30 };

const kinds = (gpus: readonly Gpu[], owners?: string[]) => verdictsOf(scrapes(gpus), LIVE_S, owners).map((d) => d.kind);
const waste = new Set<string>(WASTE_STATES);

describe('a node shared by two jobs', () => {
  const owners = [0, 1, 2, 3].map(() => job({ pod: 'train-a', namespace: 'ml' }));
  owners.push(...[4, 5, 6, 7].map(() => job({ pod: 'train-b', namespace: 'ml' })));

  test('one hung and one healthy, with profiling counters: the hang is found, the healthy job is not waste', () => {
    const gpus = [hungProf, hungProf, hungProf, hungProf, workingProf, workingProf, workingProf, workingProf];
    const v = verdictsOf(scrapes(gpus), LIVE_S, owners);
    for (const d of v.slice(0, 4)) {
      expect(d.kind).toBe('communication-hang');
      expect(d.gpus).toEqual([0, 1, 2, 3]);
      expect(d.evidence[0]).toMatch(/^GPUs 0, 1, 2, 3:/);
    }
    for (const d of v.slice(4)) {
      expect(d.kind).toBe('compute-bound');
      expect(waste.has(d.kind)).toBe(false);
    }
  });

  test('the same with the default counters: the hang is found (medium), the healthy job is not waste', () => {
    const gpus = [hungDefault, hungDefault, hungDefault, hungDefault, ...[4, 5, 6, 7].map(() => workingDefault)];
    const v = verdictsOf(scrapes(gpus), LIVE_S, owners);
    for (const d of v.slice(0, 4)) expect(d).toMatchObject({ kind: 'communication-hang', confidence: 'medium' });
    for (const d of v.slice(4)) expect(waste.has(d.kind), d.title).toBe(false);
  });

  test('the hung job on the upper GPUs is named by their own numbers', () => {
    const gpus = [workingProf, workingProf, workingProf, workingProf, hungProf, hungProf, hungProf, hungProf];
    const v = verdictsOf(scrapes(gpus), LIVE_S, owners);
    expect(v[4]!.evidence[0]).toMatch(/^GPUs 4, 5, 6, 7:/);
    expect(v[4]!.gpus).toEqual([4, 5, 6, 7]);
    expect(v[0]!.kind).toBe('compute-bound');
  });

  test("the window's hours judge each segment per job too, and agree with the verdict now", () => {
    const gpus = [hungProf, hungProf, hungProf, hungProf, workingProf, workingProf, workingProf, workingProf];
    const segment = steadyWindow(scrapes(gpus).at(-1)!, 3086);
    const hours = verdictsOf(segment, 3086, owners).map((d) => d.kind);
    expect(hours).toEqual([...Array(4).fill('communication-hang'), ...Array(4).fill('compute-bound')]);
    expect(hours).toEqual(kinds(gpus, owners));
  });
});

describe('independent pods on one host', () => {
  const pods = Array.from({ length: 8 }, (_, i) => job({ pod: `infer-${i}`, namespace: 'serve' }));

  test('one GPU slower than the rest is no straggler: each pod is judged on its own readings', () => {
    const gpus = [workingProf, workingProf, { ...workingProf, smActivePct: 60, tensorActivePct: 35 }];
    gpus.push(...[3, 4, 5, 6, 7].map(() => workingProf));
    const v = verdictsOf(scrapes(gpus), LIVE_S, pods);
    expect(v.map((d) => d.kind)).not.toContain('straggler');
    v.forEach((d, i) => expect(d.kind, `GPU ${i}`).toBe(verdictsOf(scrapes([gpus[i]!]), LIVE_S)[0]!.kind));
  });

  test('single-GPU pods that all read busy and still are not hung by comparison', () => {
    const v = kinds(
      Array.from({ length: 8 }, () => hungDefault),
      pods,
    );
    expect(v).not.toContain('communication-hang');
    expect(kinds([hungProf, hungProf], pods.slice(0, 2))).not.toContain('communication-hang');
  });
});

describe('clock event reasons come before the straggler rule', () => {
  const clear = { ...workingProf, smActivePct: 70, clockEventReasons: [] as string[] };
  const capped = { ...workingProf, smActivePct: 95, clockEventReasons: ['SwPowerCap'] };

  test('a job with one throttled GPU: it is "throttled" and paces the job; the others are not stragglers', () => {
    const owners = Array.from({ length: 4 }, () => job({ hpc_job: '4711' }));
    const v = verdictsOf(scrapes([clear, clear, capped, clear]), LIVE_S, owners);
    expect(v[2]!.kind).toBe('throttled');
    expect(v[2]!.title).toMatch(/GPU 2 of 4 held down/);
    for (const i of [0, 1, 3]) expect(v[i]!.kind, `GPU ${i}`).toBe('compute-bound');
  });

  test('the throttled GPU of a job on GPUs 4–7 is named GPU 6', () => {
    const owners = [...Array(4).fill(job({ pod: 'a', namespace: 'x' })), ...Array(4).fill(job({ pod: 'b' }))];
    const v = verdictsOf(scrapes([clear, clear, clear, clear, clear, clear, capped, clear]), LIVE_S, owners);
    expect(v[6]!.title).toMatch(/GPU 6 of 4 held down/);
    expect(v.map((d) => d.kind)).not.toContain('straggler');
  });
});

describe('no SM or tensor activity: GPU-Util, memory activity and power decide a hang', () => {
  const owners = Array.from({ length: 4 }, () => job({ pod: 'train', namespace: 'ml' }));

  test('near idle is 26% of the TDP from the spec table: 182 W on an H100 SXM, even under a lowered limit', () => {
    expect(nearIdleWatts({ name: 'NVIDIA H100 80GB HBM3', powerLimitW: 350 })).toBe(182);
    expect(nearIdleWatts({ name: 'NVIDIA A100-SXM4-80GB', powerLimitW: 400 })).toBe(104);
    expect(nearIdleWatts({ name: 'an unlisted GPU', powerLimitW: 300 })).toBe(78);
    expect(nearIdleWatts({ name: 'an unlisted GPU', powerLimitW: null })).toBeNull();
  });

  test('every GPU at ≥ 95% with memory busy at most 2% at near-idle power: a hang, medium, with the arithmetic', () => {
    const v = verdictsOf(scrapes([hungDefault, hungDefault, hungDefault, hungDefault]), LIVE_S, owners);
    for (const d of v) {
      expect(d).toMatchObject({ kind: 'communication-hang', confidence: 'medium', gpus: [0, 1, 2, 3] });
      expect(d.evidence.join(' ')).toMatch(/SM and tensor activity not exported.*at most 182 W \(near idle/);
    }
    // A lowered power limit does not hide it: 98 W is near idle for a 700 W board whatever the limit.
    const limited = { ...hungDefault, powerLimitWatts: 350, powerWatts: 150 };
    expect(kinds([limited, limited], owners.slice(0, 2))).toEqual(['communication-hang', 'communication-hang']);
  });

  test('one rank whose memory reads 1–3% (shown 2%) at 91 W does not hide the hang: medium, not "can\'t tell"', () => {
    // The independent cluster's v3-default H100 hang: whole-percent samples of 1–3% show as 2%.
    const flicker = { ...hungDefault, powerWatts: 91, memUtilPct: (i: number) => [1, 2, 2, 3][i % 4]! };
    const v = verdictsOf(
      windowOf([hungDefault, hungDefault, hungDefault, flicker], { n: 21, intervalS: 15 }),
      LIVE_S,
      owners,
    );
    for (const d of v) expect(d).toMatchObject({ kind: 'communication-hang', confidence: 'medium' });
    expect(v[0]!.evidence.join(' ')).toMatch(/memory busy at most 2% of the time and power at most 182 W/);
  });

  test('a stalled rank beside still ones is a hang too, still medium when judged from power', () => {
    const stalled = { ...H100, gpuUtilPct: 0, memUtilPct: 0, powerWatts: 76 };
    const v = verdictsOf(scrapes([hungDefault, hungDefault, stalled, hungDefault]), LIVE_S, owners);
    for (const d of v) expect(d).toMatchObject({ kind: 'communication-hang', confidence: 'medium' });
  });

  test('memory busy 10% of the time, or power high, or one rank at work: not a hang', () => {
    const moving = { ...hungDefault, memUtilPct: 10 };
    expect(kinds([moving, moving, moving, moving], owners)).not.toContain('communication-hang');
    const hot = { ...hungDefault, powerWatts: 450 };
    expect(kinds([hot, hot, hot, hot], owners)).not.toContain('communication-hang');
    expect(kinds([hungDefault, hungDefault, hungDefault, workingDefault], owners)).not.toContain('communication-hang');
    const at90 = { ...hungDefault, gpuUtilPct: 90 };
    expect(kinds([at90, at90, at90, at90], owners)).not.toContain('communication-hang');
  });

  test("a job of one GPU so is not hung: can't tell, naming throughput", () => {
    const [d] = verdictsOf(scrapes([hungDefault]), LIVE_S, owners.slice(0, 1));
    expect(d!.kind).toBe('cant-tell');
    expect(d!.decide).toMatch(/^Throughput/);
  });

  test("power missing: each GPU can't tell, naming SM activity and board power", () => {
    const noPower = { ...hungDefault, powerWatts: null };
    for (const d of verdictsOf(scrapes([noPower, noPower, noPower, noPower]), LIVE_S, owners)) {
      expect(d.kind).toBe('cant-tell');
      expect(d.evidence).toContain('board power not reported');
      expect(d.decide).toMatch(/^SM activity.*board power: near idle/);
    }
  });
});

describe('GPUs without owner labels', () => {
  test("on a host where other GPUs have owners they form the host's own group, never joined to a pod's job", () => {
    // A ServiceMonitor scrape: the plain pod is the exporter's own on every series, so GPUs 4–7 have no owner.
    const exporter = { pod: 'nvidia-dcgm-exporter-7xk2p', namespace: 'gpu-operator' };
    const owned = job({ ...exporter, exported_pod: 'train-a', exported_namespace: 'ml' }, true);
    const unowned = job(exporter, true);
    expect(unowned).toBe('host:node-1');
    const owners = [owned, owned, owned, owned, unowned, unowned, unowned, unowned];
    const idle: Gpu = { ...H100, gpuUtilPct: 0, memUtilPct: 0, memUsedBytes: 0, powerWatts: 70 };
    // The pod's job hung; the free GPUs are idle, each for itself, and take no part in the hang.
    const v = verdictsOf(scrapes([hungProf, hungProf, hungProf, hungProf, idle, idle, idle, idle]), LIVE_S, owners);
    expect(v.slice(0, 4).map((d) => d.kind)).toEqual(Array(4).fill('communication-hang'));
    expect(v.slice(4).map((d) => d.kind)).toEqual(Array(4).fill('idle'));
    // Two unowned GPUs still together (a torchrun started by hand on the free GPUs) are one job: hung; the pod works.
    const w = verdictsOf(scrapes([...Array(4).fill(workingProf), hungProf, hungProf, idle, idle]), LIVE_S, owners);
    expect(w.map((d) => d.kind)).toEqual([
      ...Array(4).fill('compute-bound'),
      'communication-hang',
      'communication-hang',
      'idle',
      'idle',
    ]);
  });
});

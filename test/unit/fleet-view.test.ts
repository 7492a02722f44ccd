import { describe, expect, test } from 'vitest';
import { groupFleet, mainState, nowAndWindowText, type FleetGpuJson } from '../../src/lib/fleet-view.ts';

const gpu = (hostname: string, g: number, wastefulHours: number, extra: Partial<FleetGpuJson> = {}): FleetGpuJson => ({
  instance: `${hostname}:9400`,
  hostname,
  gpu: g,
  uuid: null,
  model: 'NVIDIA H100 80GB HBM3',
  labels: { pod: null, namespace: null, container: null, job: null },
  verdict: { kind: 'idle', title: 'Idle', confidence: 'high', evidence: [], next: '', cardId: 'gpu-util' },
  hours: { idle: wastefulHours, 'compute-bound': 1 - wastefulHours },
  wastefulHours,
  energyKWh: null,
  ...extra,
});

describe('the fleet page grouping', () => {
  test('groups are ordered by wasteful GPU-hours, and GPUs within a group too', () => {
    const groups = groupFleet([gpu('a', 0, 0.1), gpu('b', 0, 0.9), gpu('a', 1, 0.5), gpu('b', 1, 0.2)], 'host');
    expect(groups.map((g) => g.name)).toEqual(['b', 'a']);
    expect(groups[0]!.wastefulHours).toBeCloseTo(1.1, 9);
    expect(groups[1]!.gpus.map((g) => g.gpu)).toEqual([1, 0]);
    expect(groups[1]!.reportedHours).toBeCloseTo(2, 9);
  });

  test('by namespace, unlabelled GPUs group together and an HPC job names its group', () => {
    const groups = groupFleet(
      [
        gpu('a', 0, 0.5, { labels: { pod: 'p', namespace: 'ml', container: null, job: null } }),
        gpu('a', 1, 0.4, { labels: { pod: null, namespace: null, container: null, job: '4711' } }),
        gpu('b', 0, 0.3),
      ],
      'namespace',
    );
    expect(groups.map((g) => g.name)).toEqual(['ml', 'job 4711', '(no owner label)']);
  });

  test('the main state is the one with the most hours; none when nothing was reported', () => {
    expect(mainState(gpu('a', 0, 0.7))).toBe('idle');
    expect(mainState({ ...gpu('a', 0, 0), hours: {} })).toBeNull();
  });
});

describe('the verdict now beside the hours over the window (issue 28)', () => {
  const starvedNow = {
    kind: 'data-starvation',
    title: 'Data starvation',
    confidence: 'medium',
    evidence: [],
    next: '',
    cardId: 'x',
  };

  test('where they agree, one state: "mostly" it', () => {
    const g = gpu('a', 0, 1, { verdict: starvedNow, hours: { 'data-starvation': 0.95, 'compute-bound': 0.05 } });
    expect(nowAndWindowText(g, 300)).toBe('mostly Starved of input data');
  });

  test('where they differ, both are named with the span each covers, and why', () => {
    const g = gpu('a', 0, 1, { verdict: starvedNow, hours: { 'idle-allocated': 0.75, 'data-starvation': 0.25 } });
    const text = nowAndWindowText(g, 300);
    expect(text).toMatch(/^Idle but allocated for most of the window \(75% of its hours\)/);
    expect(text).toMatch(/Starved of input data in the last 5 minutes: it changed within the window$/);
    expect(text).not.toMatch(/^mostly/);
  });

  test('"can\'t tell" now is not called a change of the job', () => {
    const g = gpu('a', 0, 1, { verdict: { ...starvedNow, kind: 'cant-tell' }, hours: { 'idle-allocated': 1 } });
    expect(nowAndWindowText(g, 60)).toBe(
      "Idle but allocated for most of the window (100% of its hours); Can't tell in the last minute",
    );
  });
});

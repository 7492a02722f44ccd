/**
 * The independent cluster generator itself (test/fleet/independent/): what it writes is what a fleet's
 * dcgm-exporters would send, and its truth is what the plan says. No Prometheus here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { planCluster, SCENARIOS, stateAt } from './independent/plan.ts';
import { levelsOf } from './independent/readings.ts';
import { RANGES } from './independent/ranges.ts';
import { clusterWriter } from './independent/write.ts';

const END_S = Date.UTC(2026, 10, 30, 12) / 1000;

describe('the independent cluster plan', () => {
  const hosts = planCluster(512);

  test('64 hosts of 8 GPUs, every scenario on every exporter flavour and both scrape paths', () => {
    expect(hosts).toHaveLength(64);
    for (const s of SCENARIOS) {
      const of = hosts.filter((h) => h.scenario === s);
      expect(new Set(of.map((h) => h.flavour)).size, s).toBe(3);
      expect(new Set(of.map((h) => h.kubernetes)).size, s).toBe(2);
      expect(new Set(of.map((h) => h.model)).size, s).toBe(2);
    }
  });

  test('each GPU of a job draws its own level within the range of its state', () => {
    const training = hosts.find((h) => h.scenario === 'training')!;
    const sm = training.gpus.map((g) => levelsOf(g).get('compute-bound')!.sm);
    expect(new Set(sm).size).toBe(8);
    for (const x of sm) expect(x).toBeGreaterThanOrEqual(RANGES['compute-bound'].sm[0]);
  });

  test('the shared node holds a hung job and a healthy one; busy-then-held changes state once', () => {
    const shared = hosts.find((h) => h.scenario === 'shared')!;
    expect(shared.gpus.map((g) => stateAt(g, 86_400))).toEqual([
      ...Array(4).fill('communication-hang'),
      ...Array(4).fill('compute-bound'),
    ]);
    const held = hosts.find((h) => h.scenario === 'busy-then-held')!;
    expect(stateAt(held.gpus[0]!, 0)).toBe('compute-bound');
    expect(stateAt(held.gpus[0]!, 86_400)).toBe('idle-allocated');
  });

  test('each single-GPU pod or Slurm job is its own job; an 8-GPU job is one; no two hosts share an id', () => {
    const jobKey = (o: (typeof hosts)[number]['gpus'][number]['owner']) =>
      o === null ? null : 'hpcJob' in o ? `slurm:${o.hpcJob}` : `pod:${o.namespace}/${o.pod}`;
    const singles = ['notebooks', 'starved', 'small-kernels'] as const;
    for (const h of hosts) {
      const keys = h.gpus.map((g) => jobKey(g.owner));
      const expected = singles.includes(h.scenario as (typeof singles)[number]) ? 8 : h.scenario === 'shared' ? 2 : 1;
      expect(new Set(keys).size, `${h.hostname} (${h.scenario}, ${h.kubernetes ? 'k8s' : 'slurm'})`).toBe(expected);
    }
    const all = hosts.flatMap((h) => [...new Set(h.gpus.map((g) => jobKey(g.owner)).filter((k) => k !== null))]);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('the independent cluster as dcgm-exporter series', () => {
  test('each flavour sends its own names and host label; Kubernetes hosts carry the workload as exported_*', () => {
    const hosts = planCluster(240).slice(0, 30);
    const dir = mkdtempSync(join(tmpdir(), 'saturate-gen-'));
    try {
      const file = join(dir, 'a.om');
      clusterWriter(hosts, END_S - 3600, 30).writeRange(file, END_S - 3600, END_S - 3600 + 60);
      const text = readFileSync(file, 'utf8');
      const linesOf = (host: string) => text.split('\n').filter((l) => l.includes(`="${host}"`));
      const byFlavour = (f: string) => hosts.find((h) => h.flavour === f && h.scenario === 'training')!;
      const v4 = linesOf(byFlavour('v4-prof').hostname);
      expect(v4.some((l) => l.startsWith('DCGM_FI_DEV_CLOCKS_EVENT_REASONS{') && l.includes(',hostname='))).toBe(true);
      const v3 = linesOf(byFlavour('v3-prof').hostname);
      expect(v3.some((l) => l.startsWith('DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{') && l.includes(',Hostname='))).toBe(
        true,
      );
      expect(v3.some((l) => l.startsWith('DCGM_FI_DEV_CLOCKS_EVENT_REASONS{'))).toBe(false);
      const plain = linesOf(byFlavour('v3-default').hostname);
      expect(plain.some((l) => l.startsWith('DCGM_FI_PROF_') || l.includes('_REASONS{'))).toBe(false);
      const k8s = hosts.find((h) => h.kubernetes && h.scenario === 'notebooks')!;
      const line = linesOf(k8s.hostname).find((l) => l.startsWith('DCGM_FI_DEV_GPU_UTIL{'))!;
      expect(line).toMatch(/,pod="nvidia-dcgm-exporter-[^"]+"/);
      expect(line).toMatch(/exported_pod="jupyter-\d+-\d+"/);
      expect(text.trimEnd().endsWith('# EOF')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

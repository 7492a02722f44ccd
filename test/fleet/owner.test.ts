/**
 * Who owns a GPU (server/fleet/owner.ts), as the fleet reads it from real label sets: a Kubernetes ServiceMonitor
 * scrape (the exporter's pod in `pod`, the workload's in `exported_pod`), a plain scrape, Slurm's `hpc_job`, none.
 */
import { describe, expect, test } from 'vitest';
import { hostsFromSeries } from '../../server/fleet/collect.ts';
import { ownerKey, ownerOfLabels } from '../../server/fleet/owner.ts';
import type { RangeSeries } from '../../server/fleet/prometheus-api.ts';

const END = 1_800_000_000;

/** One GPU_UTIL series per GPU of a host, with the host's scrape labels and each GPU's own. */
function host(hostname: string, target: Record<string, string>, perGpu: Record<string, string>[]): RangeSeries[] {
  return perGpu.map((own, gpu) => ({
    labels: {
      __name__: 'DCGM_FI_DEV_GPU_UTIL',
      instance: `${hostname}:9400`,
      gpu: String(gpu),
      UUID: `GPU-${hostname}-${gpu}`,
      Hostname: hostname,
      modelName: 'NVIDIA H100 80GB HBM3',
      ...target,
      ...own,
    },
    points: [[END, 100]],
  }));
}

/** The ServiceMonitor scrape's own labels: the exporter's pod and namespace. */
const EXPORTER = { pod: 'nvidia-dcgm-exporter-7xk2p', namespace: 'gpu-operator', container: 'nvidia-dcgm-exporter' };
const TRAIN = { exported_pod: 'train-llm-0', exported_namespace: 'research', exported_container: 'trainer' };

const owners = (series: RangeSeries[]) =>
  hostsFromSeries(series, END, END, 15).flatMap((h) => h.gpus.map((g) => ({ gpu: g.gpu, ...g.owner })));

describe('the owner of a GPU', () => {
  test("a host where half the series carry exported_pod: those GPUs are the workload's, the rest no pod's (not the exporter's)", () => {
    const o = owners(host('gpu-a', EXPORTER, [TRAIN, TRAIN, TRAIN, TRAIN, {}, {}, {}, {}]));
    for (const g of o.slice(0, 4))
      expect(g).toMatchObject({ pod: 'train-llm-0', namespace: 'research', container: 'trainer', job: null });
    for (const g of o.slice(4)) expect(g).toMatchObject({ pod: null, namespace: null, container: null });
    expect(o.map((g) => g.pod)).not.toContain(EXPORTER.pod);
  });

  test('without a ServiceMonitor, pod and namespace are the workload', () => {
    const o = owners(host('gpu-b', {}, [{ pod: 'train-b', namespace: 'vision' }, {}]));
    expect(o[0]).toMatchObject({ pod: 'train-b', namespace: 'vision' });
    expect(o[1]).toMatchObject({ pod: null, namespace: null });
  });

  test('exported_pod wins over pod on the same series, and its namespace comes with it', () => {
    expect(ownerOfLabels({ ...EXPORTER, ...TRAIN })).toMatchObject({ pod: 'train-llm-0', namespace: 'research' });
    expect(ownerOfLabels({ ...EXPORTER, exported_pod: 'x' })).toMatchObject({ pod: 'x', namespace: null });
  });

  test('the grouping key: pod (with its namespace), else hpc_job, else the host', () => {
    const key = (labels: Record<string, string>, setsPod = false) => ownerKey(ownerOfLabels(labels, setsPod), 'gpu-c');
    expect(key({ ...EXPORTER, ...TRAIN }, true)).toBe('pod:research/train-llm-0');
    expect(key({ pod: 'a', namespace: 'x' })).not.toBe(key({ pod: 'a', namespace: 'y' }));
    expect(key({ hpc_job: '4711' })).toBe('hpc_job:4711');
    expect(key({ ...EXPORTER, hpc_job: '4711' }, true)).toBe('hpc_job:4711');
    expect(key(EXPORTER, true)).toBe('host:gpu-c');
    expect(key({})).toBe('host:gpu-c');
  });

  test('a GPU whose pod changed in the range keeps one whole owner (a pod and its own namespace)', () => {
    const series = [
      ...host('gpu-d', EXPORTER, [{}]),
      ...host('gpu-d', EXPORTER, [TRAIN]).map((s) => ({
        ...s,
        labels: { ...s.labels, __name__: 'DCGM_FI_DEV_FB_USED' },
      })),
    ];
    expect(owners(series)[0]).toMatchObject({ pod: 'train-llm-0', namespace: 'research' });
  });
});

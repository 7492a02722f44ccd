/**
 * Who owns a GPU, from the labels on its series. In order: the workload Prometheus renamed (`exported_pod`,
 * `exported_namespace`: a Kubernetes ServiceMonitor scrape puts the exporter's own pod in `pod` and the
 * workload's in `exported_pod`), else `pod`/`namespace`, else the HPC job (`hpc_job`), else the host itself.
 * On a scrape target where any series carries `exported_pod`, `pod` is that target's (the exporter's pod) on
 * every series, so a GPU without `exported_pod` there has no pod owner: it is idle or unmapped, not the exporter's.
 */
import { OWNER_LABELS, labelOf } from '../../src/protocol/dcgm.ts';

/** The owner labels of one GPU, normalised (`exported_pod` → pod); null where none applies. */
export interface GpuOwner {
  pod: string | null;
  namespace: string | null;
  container: string | null;
  job: string | null;
}

const get = (labels: Record<string, string>, name: string): string | null => labels[name] || null;

/**
 * The owner a series names. `targetSetsPod`: its scrape target carries `exported_pod` on some series, so the
 * plain `pod`/`namespace`/`container` are the target's, not a workload's.
 * @example
 * ownerOfLabels({ pod: 'dcgm-exporter-x', exported_pod: 'train-0', exported_namespace: 'ml' }, true)
 * // → { pod: 'train-0', namespace: 'ml', container: null, job: null }
 */
export function ownerOfLabels(labels: Record<string, string>, targetSetsPod = false): GpuOwner {
  const job = labelOf(labels, OWNER_LABELS.job);
  const e = OWNER_LABELS.exported;
  if (labels[e.pod])
    return { pod: get(labels, e.pod), namespace: get(labels, e.namespace), container: get(labels, e.container), job };
  const p = OWNER_LABELS.plain;
  if (targetSetsPod) return { pod: null, namespace: null, container: null, job };
  return { pod: get(labels, p.pod), namespace: get(labels, p.namespace), container: get(labels, p.container), job };
}

/** The scrape targets (`instance`) where some series carries `exported_pod`: their plain `pod` is their own. */
export function targetsThatSetPod(series: readonly { labels: Record<string, string> }[]): Set<string> {
  const out = new Set<string>();
  for (const s of series) if (s.labels[OWNER_LABELS.exported.pod]) out.add(s.labels['instance'] ?? '');
  return out;
}

/**
 * One owner from two series of the same GPU (its pod changed within the range, or one series lacks the labels):
 * the first one that names a pod, whole (a pod from one and a namespace from the other would be no real owner).
 */
export function mergeOwners(a: GpuOwner, b: GpuOwner): GpuOwner {
  if (a.pod || !b.pod) return { ...a, job: a.job ?? b.job };
  return { ...b, job: b.job ?? a.job };
}

/**
 * The job a GPU belongs to, for grouping a hang or a straggler: its namespace and pod, else its HPC job, else its
 * host (every unlabelled GPU of a host taken as one job).
 * @example ownerKey({ pod: 'train-0', namespace: 'ml', container: null, job: null }, 'gpu-a') // 'pod:ml/train-0'
 */
export function ownerKey(owner: GpuOwner, hostname: string): string {
  if (owner.pod) return `pod:${owner.namespace ?? ''}/${owner.pod}`;
  if (owner.job) return `hpc_job:${owner.job}`;
  return `host:${hostname}`;
}

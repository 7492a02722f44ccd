/**
 * The verdict the audit reports for one GPU, from the diagnosis engine's or in place of one: what the fleet
 * knows that the engine cannot (an impossible reading, no recent scrape, a reading the exporter never sends).
 */
import type { Diagnosis } from '../../src/lib/diagnose/index.ts';
import type { StreamMessage } from '../../src/protocol/metrics.ts';

/** A GPU's verdict in the report. */
export type AuditVerdict = Pick<Diagnosis, 'kind' | 'title' | 'confidence' | 'evidence' | 'next' | 'cardId'> & {
  decide?: string;
};

/** Working states a throttled GPU would otherwise be read as (the engine's throttle rule comes first). */
const WORKING = new Set<Diagnosis['kind']>(['compute-bound', 'memory-bound']);

/**
 * The engine's verdict for GPU `index` (its position in `messages`' GPUs). A working verdict is never "high"
 * when none of the messages holds the GPU's clock event reasons: throttling, a wasteful state, cannot be ruled
 * out without them, and the evidence says which reading is missing.
 */
export function pickVerdict(d: Diagnosis, messages: readonly StreamMessage[] = [], index = 0): AuditVerdict {
  const v: AuditVerdict = {
    kind: d.kind,
    title: d.title,
    confidence: d.confidence,
    evidence: d.evidence,
    next: d.next,
    cardId: d.cardId,
    ...(d.decide ? { decide: d.decide } : {}),
  };
  if (!WORKING.has(d.kind) || d.confidence !== 'high' || messages.length === 0) return v;
  if (messages.some((m) => m.gpus[index]?.clockEventReasons != null)) return v;
  const why = messages.at(-1)?.gpus[index]?.nullReasons['clockEventReasons'] ?? 'clock event reasons not reported';
  return {
    ...v,
    confidence: 'medium',
    evidence: [...v.evidence, `throttling not ruled out: ${why}`],
    decide:
      'Clock event reasons (DCGM_FI_DEV_CLOCKS_EVENT_REASONS): a power or thermal reason active most of the time means throttled.',
  };
}

/** The verdict of a GPU that sent a corrupt reading (readings.ts): "can't tell", with the reading named. */
export function badReading(why: string): AuditVerdict {
  return {
    kind: 'cant-tell',
    title: "Can't tell: Prometheus sent an impossible reading",
    confidence: 'low',
    evidence: [why],
    next: 'Check dcgm-exporter on this host (its version and counters CSV) and any recording rule that feeds this series.',
    cardId: 'dcgm-exporter-prometheus-grafana',
    decide: 'Readings within their range from dcgm-exporter.',
  };
}

/** The verdict of a GPU with no scrape where one was looked for. */
export function noData(why: string): AuditVerdict {
  return {
    kind: 'cant-tell',
    title: "Can't tell: no recent data",
    confidence: 'low',
    evidence: [why],
    next: 'Check that dcgm-exporter on this host is up and scraped.',
    cardId: 'dcgm-exporter-prometheus-grafana',
    decide: 'A scrape in the last minutes.',
  };
}

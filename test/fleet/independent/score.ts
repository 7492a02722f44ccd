/**
 * The audit's report scored against the independent cluster's truth: each GPU's verdict now against the state it is
 * in at the window's end, and the GPU-hours the audit counts per state against the hours each GPU truly spent in it.
 *
 * What "right" means, per state (the verdict kind the audit must give):
 * - compute-bound → "compute-bound"; idle → "idle"; idle-allocated → "idle-allocated";
 * - data-starvation → "data-starvation"; small-kernels → "small-kernels";
 * - throttled-power and throttled-thermal → "throttled";
 * - communication-hang (every GPU of the hung job, the shared node's hung half included) → "communication-hang".
 * A state whose deciding reading the GPU's exporter does not send is "excused" there: "can't tell" is then neither
 * right nor wrong, and is counted apart. Which readings decide which state (`decidable`): telling compute-bound
 * from small kernels takes the profiling fields (SM or tensor activity); throttling takes the clock event mask.
 * A hang is decidable everywhere (GPU-Util, memory-copy activity and power are default counters). "Wrong" is any
 * other verdict; "confidently wrong" is a wrong verdict at high confidence.
 */
import type { AuditReport, GpuAudit } from '../../../server/fleet/audit.ts';
import { EXPORTS, stateAt, type Flavour, type PlannedHost } from './plan.ts';
import type { TruthState } from './ranges.ts';

/** The verdict kind each state must get. */
export const EXPECTED: Record<TruthState, string> = {
  'compute-bound': 'compute-bound',
  idle: 'idle',
  'idle-allocated': 'idle-allocated',
  'data-starvation': 'data-starvation',
  'small-kernels': 'small-kernels',
  'throttled-power': 'throttled',
  'throttled-thermal': 'throttled',
  'communication-hang': 'communication-hang',
};

/** Whether the exporter flavour sends the reading that decides `state`. */
export function decidable(state: TruthState, flavour: Flavour): boolean {
  const e = EXPORTS[flavour];
  if (state === 'compute-bound' || state === 'small-kernels') return e.profiling;
  if (state === 'throttled-power' || state === 'throttled-thermal') return e.reasons !== null;
  return true;
}

export type Outcome = 'right' | 'excused' | 'wrong';

export interface ScoredGpu {
  host: PlannedHost;
  gpu: number;
  truth: TruthState;
  audit: GpuAudit;
  outcome: Outcome;
  confidentlyWrong: boolean;
}

export interface HoursRow {
  kind: string;
  /** GPU-hours truly in the state, on GPUs whose exporter sends what decides it. */
  truthH: number;
  /** GPU-hours the audit counted in the state, on the same GPUs. */
  auditH: number;
  /** (audit − truth) / truth. */
  error: number;
  /** Truth hours on GPUs where the state is not decidable, and how the audit counted them. */
  excusedH: number;
  excusedAs: Record<string, number>;
}

export interface Score {
  gpus: ScoredGpu[];
  missing: string[];
  right: number;
  excused: number;
  wrong: number;
  confidentlyWrong: ScoredGpu[];
  /** right / (all − excused). */
  rightShare: number;
  /** truth state (with "†" where not decidable) → verdict kind → GPUs. */
  matrix: Map<string, Map<string, number>>;
  hours: HoursRow[];
}

/** Truth hours per state of one GPU over the window. */
function truthHours(host: PlannedHost, gi: number, windowS: number): Map<TruthState, number> {
  const tl = host.gpus[gi]!.timeline;
  const out = new Map<TruthState, number>();
  tl.forEach((s, i) => {
    const to = i + 1 < tl.length ? tl[i + 1]!.fromS : windowS;
    out.set(s.state, (out.get(s.state) ?? 0) + (Math.min(to, windowS) - Math.max(0, s.fromS)) / 3600);
  });
  return out;
}

export function scoreReport(report: AuditReport, hosts: readonly PlannedHost[], windowS: number): Score {
  const byKey = new Map(report.gpus.map((g) => [`${g.hostname}/${g.gpu}`, g]));
  const gpus: ScoredGpu[] = [];
  const missing: string[] = [];
  const matrix = new Map<string, Map<string, number>>();
  const hours = new Map<string, HoursRow>();
  const row = (kind: string) => {
    let r = hours.get(kind);
    if (!r) hours.set(kind, (r = { kind, truthH: 0, auditH: 0, error: 0, excusedH: 0, excusedAs: {} }));
    return r;
  };
  for (const h of hosts)
    h.gpus.forEach((g, gi) => {
      const a = byKey.get(`${h.hostname}/${gi}`);
      if (!a) return void missing.push(`${h.hostname}/${gi}`);
      const truth = stateAt(g, windowS);
      const ok = a.verdict.kind === EXPECTED[truth];
      const excused = !ok && a.verdict.kind === 'cant-tell' && !decidable(truth, h.flavour);
      const outcome: Outcome = ok ? 'right' : excused ? 'excused' : 'wrong';
      gpus.push({
        host: h,
        gpu: gi,
        truth,
        audit: a,
        outcome,
        confidentlyWrong: outcome === 'wrong' && a.verdict.kind !== 'cant-tell' && a.verdict.confidence === 'high',
      });
      const label = decidable(truth, h.flavour) ? truth : `${truth}†`;
      const cells = matrix.get(label) ?? new Map<string, number>();
      cells.set(a.verdict.kind, (cells.get(a.verdict.kind) ?? 0) + 1);
      matrix.set(label, cells);
      // Hours: the states this GPU can be judged in count on both sides; the others are excused.
      const truthH = truthHours(h, gi, windowS);
      const kinds = new Set(Object.values(EXPECTED));
      for (const kind of kinds) {
        const states = (Object.keys(EXPECTED) as TruthState[]).filter((s) => EXPECTED[s] === kind);
        const judged = states.some((s) => decidable(s, h.flavour));
        const t = states.reduce((x, s) => x + (truthH.get(s) ?? 0), 0);
        if (judged) {
          row(kind).truthH += t;
          row(kind).auditH += a.hours[kind as keyof typeof a.hours] ?? 0;
        } else if (t > 0) row(kind).excusedH += t;
      }
      // How the audit counted the hours of a state it cannot decide here: this GPU's hours outside the kinds it can.
      const undecided = [...truthH.keys()].filter((s) => !decidable(s, h.flavour));
      const decided = new Set([...truthH.keys()].filter((s) => decidable(s, h.flavour)).map((s) => EXPECTED[s]));
      if (undecided.length) {
        const r = row(EXPECTED[undecided[0]!]);
        for (const [k, v] of Object.entries(a.hours)) if (!decided.has(k)) r.excusedAs[k] = (r.excusedAs[k] ?? 0) + v;
      }
    });
  for (const r of hours.values()) r.error = r.truthH > 0 ? (r.auditH - r.truthH) / r.truthH : r.auditH > 0 ? 1 : 0;
  const right = gpus.filter((g) => g.outcome === 'right').length;
  const excused = gpus.filter((g) => g.outcome === 'excused').length;
  return {
    gpus,
    missing,
    right,
    excused,
    wrong: gpus.length - right - excused,
    confidentlyWrong: gpus.filter((g) => g.confidentlyWrong),
    rightShare: right / Math.max(1, gpus.length - excused),
    matrix,
    hours: [...hours.values()],
  };
}

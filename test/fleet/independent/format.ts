/** The score (score.ts) as text a closing note can paste: the confusion matrix, the hours per state, the misses. */
import { BOTTLENECK_KINDS } from '../../../src/lib/diagnose/index.ts';
import type { Score } from './score.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** truth × verdict, one row per state (a "†" row: the GPUs whose exporter lacks what decides it). */
export function matrixText(s: Score): string {
  const cols = BOTTLENECK_KINDS.filter((k) => [...s.matrix.values()].some((c) => c.has(k)));
  const short = (k: string) => k.replace('communication-hang', 'comm-hang').replace('data-starvation', 'starved');
  const w = Math.max(...cols.map((c) => short(c).length)) + 2;
  const head = 'truth \\ verdict'.padEnd(22) + cols.map((c) => short(c).padStart(w)).join('');
  const rows = [...s.matrix.keys()].sort().map((t) => {
    const cells = s.matrix.get(t)!;
    return t.padEnd(22) + cols.map((c) => String(cells.get(c) ?? '.').padStart(w)).join('');
  });
  return [head, ...rows].join('\n');
}

/** The headline and the hours table. */
export function summaryText(s: Score): string {
  const judged = s.gpus.length - s.excused;
  const lines = [
    `verdicts now: ${s.right} of ${judged} judged GPUs right (${pct(s.rightShare)}); ${s.excused} can't tell where the ` +
      `deciding reading is not exported (†, counted apart); ${s.wrong} wrong, ${s.confidentlyWrong.length} of them at high confidence` +
      (s.missing.length ? `; ${s.missing.length} GPUs missing from the report` : ''),
    '',
    'GPU-hours per state (on GPUs whose exporter sends what decides it):',
    `${'state'.padEnd(20)}${'truth h'.padStart(10)}${'audit h'.padStart(10)}${'error'.padStart(9)}   excused truth h → how the audit counted them`,
    ...s.hours
      .filter((r) => r.truthH > 0 || r.auditH > 0 || r.excusedH > 0)
      .map(
        (r) =>
          `${r.kind.padEnd(20)}${r.truthH.toFixed(1).padStart(10)}${r.auditH.toFixed(1).padStart(10)}${(r.truthH > 0 ? pct(r.error) : '–').padStart(9)}   ` +
          (r.excusedH > 0
            ? `${r.excusedH.toFixed(1)} → ${Object.entries(r.excusedAs)
                .filter(([, v]) => v > 0.05)
                .map(([k, v]) => `${k} ${v.toFixed(1)}`)
                .join(', ')}`
            : ''),
      ),
  ];
  return lines.join('\n');
}

/** Each kind of miss: how many, on which exporter flavours and scrape paths, and one GPU's evidence. */
export function missesText(s: Score): string {
  const groups = new Map<string, typeof s.gpus>();
  for (const g of s.gpus.filter((x) => x.outcome === 'wrong')) {
    const k = `${g.truth} → ${g.audit.verdict.kind} (${g.audit.verdict.confidence})`;
    groups.set(k, [...(groups.get(k) ?? []), g]);
  }
  const out: string[] = [];
  for (const [k, gs] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const where = [...new Set(gs.map((g) => `${g.host.flavour}${g.host.kubernetes ? '/k8s' : ''}`))].join(', ');
    const ex = gs[0]!;
    out.push(
      `- ${k}: ${gs.length} GPUs (${where}); e.g. ${ex.host.hostname}/${ex.gpu} [${ex.host.scenario}]: ${ex.audit.verdict.evidence.join('; ')}`,
    );
  }
  return out.join('\n') || '- none';
}

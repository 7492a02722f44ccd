/**
 * The audit as a Markdown report for people, and as JSON for scripts (`npm run audit -- --json`). Every value
 * that comes from Prometheus (host, model, owner labels, its address) goes into the Markdown through
 * `markdownCell`: shown as text, whatever it holds.
 */
import type { BottleneckKind } from '../../src/lib/diagnose/index.ts';
import { STATE_NAMES } from '../../src/lib/fleet-view.ts';
import { describeGpuModel, gpuSpecByName } from '../../src/lib/gpu-specs.ts';
import { WASTE_KINDS, type AuditReport, type EnergySource, type GpuAudit } from './audit.ts';
import { markdownCell as md } from './plain-text.ts';

const h1 = (x: number) => x.toFixed(1);
const usd = (x: number) => `$${Math.round(x).toLocaleString('en-US')}`;

/** GPU-hours of a GPU in wasteful states over the window. */
export const wastefulHoursOf = (g: GpuAudit): number => WASTE_KINDS.reduce((a, k) => a + (g.hours[k] ?? 0), 0);

/** "24h" → 86400: a window from 1m to 90d. Throws a message that says the accepted forms. */
export function parseWindow(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text.trim());
  const n = m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd'] : NaN;
  if (!Number.isFinite(n) || n < 60 || n > 90 * 86_400)
    throw new Error(`must be a duration from 1m to 90d such as 1h, 24h or 7d (got "${text}")`);
  return Math.round(n);
}

/** A duration in seconds as "1 h", "24 h", "7 d" or "90 s". */
export function formatWindow(s: number): string {
  if (s % 86_400 === 0) return `${s / 86_400} d`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

const at = (t: number) => new Date(Math.round(t) * 1000).toISOString().replace('.000Z', 'Z');
const hours = (s: number) => `${(s / 3600).toFixed(1)} h`;

/**
 * Which series the window's hours were read from (rules/rules-path.ts), in one sentence.
 * @example pathText({ path: 'raw', … }) // "Window read from raw series (path: raw): …"
 */
export function pathText(w: AuditReport['window']): string {
  if (w.rulesOutdated)
    return (
      'Window read from raw series (path: raw): the recording rules deployed are from an older ' +
      'deploy/prometheus/saturate-rules.yml (clock event reasons recorded as saturate:dcgm:avg1m{saturate_series="reason:…"}), ' +
      'which this audit no longer reads. Deploy the current file; the window is read from the rules again once it holds none of the old series.'
    );
  if (w.path === 'recording-rules' || w.rulesFromS === null || w.rulesToS === null)
    return w.path === 'recording-rules'
      ? `Window read from the recording rules (path: recording-rules; ${w.rulesStepS === 300 ? 'saturate:dcgm:avg5m' : 'saturate:dcgm:avg1m'}, deploy/prometheus/saturate-rules.yml).`
      : 'Window read from raw series (path: raw): the recording rules in deploy/prometheus/saturate-rules.yml hold nothing for it here, or the window is under 2 h. With them a long window costs a fraction.';
  return (
    `Window read from the recording rules for ${hours(w.rulesS)} (${at(w.rulesFromS)} to ${at(w.rulesToS)}) and from raw ` +
    `series for the other ${hours(w.seconds - w.rulesS)}, where the rules hold no data (path: mixed).`
  );
}

/**
 * The report as Markdown. Costs are the report's own: every GPU at the price given, else at its model's default
 * list price (named with its source and date under the table); GPUs with neither stay unpriced.
 */
export function toMarkdown(r: AuditReport): string {
  const s = r.summary;
  const priced = s.wastefulCostUsd !== null;
  const lines: string[] = [];
  lines.push(`# GPU waste audit: ${formatWindow(r.window.seconds)} to ${at(r.window.endS)}`, '');
  const priceWords =
    s.pricePerGpuHour !== null ? `at $${s.pricePerGpuHour}/GPU-hour` : "at each model's default list price (below)";
  lines.push(
    `${s.gpus} GPUs from ${md(r.prometheus, 300)}; ${h1(s.gpuHours)} GPU-hours reported, ` +
      `${h1(s.wastefulHours)} (${s.gpuHours ? Math.round((100 * s.wastefulHours) / s.gpuHours) : 0}%) in a wasteful state` +
      (priced ? `, costing about ${usd(s.wastefulCostUsd!)} ${priceWords}.` : '.'),
    '',
  );
  lines.push('| state | GPU-hours | share |' + (priced ? ' cost |' : ''), '|---|---:|---:|' + (priced ? '---:|' : ''));
  const kinds = Object.keys(STATE_NAMES) as BottleneckKind[];
  for (const k of kinds) {
    const v = s.byKind[k];
    if (!v) continue;
    const share = s.gpuHours ? `${Math.round((100 * v) / s.gpuHours)}%` : '–';
    // The cost column exists only with a price, and only wasteful states have a cost in it.
    const cost = priced ? (WASTE_KINDS.includes(k) ? ` ${usd(s.costByKind[k] ?? 0)} |` : ' |') : '';
    lines.push(`| ${STATE_NAMES[k]} | ${h1(v)} | ${share} |${cost}`);
  }
  if (s.energyKWh !== null && Number.isFinite(s.energyKWh))
    lines.push(
      '',
      `Energy over the window: ${Math.round(s.energyKWh).toLocaleString('en-US')} kWh (${ENERGY_FROM[s.energyFrom ?? 'counter']}).`,
    );
  if (s.defaultPrices.length) {
    lines.push('', 'Default prices (pass `--price-per-gpu-hour N` to use your own):', '');
    for (const p of s.defaultPrices)
      lines.push(
        `- ${p.model}: $${p.usdPerGpuHour}/GPU-hour, ${p.provider} ${p.offer}, ${p.sourceUrl}, read ${p.readOn}.`,
      );
  }
  if (s.unpricedWastefulHours > 0)
    lines.push(
      '',
      `${h1(s.unpricedWastefulHours)} wasteful GPU-hours are not priced: their model has no default price ` +
        '(an unknown model, or one without a sourced list price). ' +
        'Pass `--price-per-gpu-hour N` to put a price on them.',
    );
  lines.push(
    '',
    `Each state is judged from ${formatWindow(Math.round(r.window.segmentS))} averages (with GPU-Util's spread within them); the verdict "now" reads every scrape of the last ${formatWindow(r.window.liveS)}. A GPU whose job did not change gets the same state both ways.`,
    '',
    pathText(r.window),
    '',
  );
  lines.push(
    '## GPUs, most wasteful first',
    '',
    '| host | GPU | model | owner | now | confidence | wasteful GPU-hours |',
    '|---|---:|---|---|---|---|---:|',
  );
  const ordered = [...r.gpus].sort(
    (a, b) => wastefulHoursOf(b) - wastefulHoursOf(a) || a.hostname.localeCompare(b.hostname) || a.gpu - b.gpu,
  );
  for (const g of ordered) {
    const owner = md([g.owner.namespace, g.owner.pod ?? g.owner.job].filter(Boolean).join('/')) || '–';
    lines.push(
      `| ${md(g.hostname)} | ${md(String(g.gpu))} | ${describeGpuModel(g.model, md)} | ${owner} | ${STATE_NAMES[g.verdict.kind]} | ${g.verdict.confidence} | ${h1(wastefulHoursOf(g))} |`,
    );
  }
  const unsure = r.gpus.filter((g) => g.verdict.kind === 'cant-tell' && g.verdict.decide);
  if (unsure.length) {
    lines.push('', '## What would decide the GPUs marked "can\'t tell"', '');
    const byNeed = new Map<string, string[]>();
    for (const g of unsure)
      byNeed.set(g.verdict.decide!, [...(byNeed.get(g.verdict.decide!) ?? []), md(`${g.hostname}/${g.gpu}`)]);
    for (const [need, which] of byNeed)
      lines.push(
        `- ${need} (${which.length} GPU${which.length === 1 ? '' : 's'}: ${which.slice(0, 6).join(', ')}${which.length > 6 ? ', …' : ''})`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** Where the energy came from, in words (audit.ts EnergySource). */
const ENERGY_FROM: Record<EnergySource, string> = {
  counter: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
  power: 'mean DCGM_FI_DEV_POWER_USAGE from the recording rules × time: they cover the whole window',
};

/** The report as JSON: `{ window, gpus: [{ instance, hostname, gpu, uuid, model, modelRow, labels, verdict, hours }], summary }`. */
export function toJson(r: AuditReport): unknown {
  return {
    window: r.window,
    dataSpanS: r.dataSpanS,
    prometheus: r.prometheus,
    queries: r.queries,
    gpus: r.gpus.map((g) => ({
      instance: g.instance,
      hostname: g.hostname,
      gpu: g.gpu,
      uuid: g.uuid,
      model: g.model,
      /** The GPU table's row for the model (src/lib/gpu-specs.ts), or null for an unknown model. */
      modelRow: gpuSpecByName(g.model)?.id ?? null,
      labels: g.owner,
      simulated: g.simulated,
      verdict: g.verdict,
      hours: g.hours,
      wastefulHours: wastefulHoursOf(g),
      energyKWh: g.energyKWh,
      pricePerGpuHour: g.pricePerGpuHour,
    })),
    summary: r.summary,
  };
}

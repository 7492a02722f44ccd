/**
 * MIG meters on an A100-40GB: DCGM reports each instance's own activity; the GPU-level value weighs it by the
 * instance's share of the 98 SMs MIG can hand out; nvidia-smi has no device GPU-Util in MIG mode (gpu-facts 1.12,
 * 2.15; content/cards/serving/mig.md).
 */
import { fmt, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** SMs an A100-40GB's MIG profiles hold (the card's figures): 14 per compute slice, 98 in all. */
export const MIG_SMS = { '1g.5gb': 14, '3g.20gb': 42, '7g.40gb': 98 } as const;
const TOTAL_SMS = MIG_SMS['7g.40gb'];

/** The layouts the figure offers: a profile and how many instances of it fit. */
const LAYOUTS: Record<string, { profile: keyof typeof MIG_SMS; count: number }> = {
  '1x7g': { profile: '7g.40gb', count: 1 },
  '2x3g': { profile: '3g.20gb', count: 2 },
  '7x1g': { profile: '1g.5gb', count: 7 },
};

/** GPU-level activity (0–1) when `busy` instances of `sms` SMs each are `activity` (0–1) active. */
export function gpuLevelActivity(sms: number, busy: number, activity: number): number {
  return (busy * sms * activity) / TOTAL_SMS;
}

export const figure: FigureDef = {
  name: 'mig',
  caption: 'MIG on an A100-40GB: what each instance reads and what the whole GPU reads',
  controls: [
    {
      kind: 'select',
      id: 'layout',
      label: 'Instances',
      options: [
        { value: '1x7g', label: '1 × 7g.40gb (98 SMs)' },
        { value: '2x3g', label: '2 × 3g.20gb (42 SMs each)' },
        { value: '7x1g', label: '7 × 1g.5gb (14 SMs each)' },
      ],
      value: '2x3g',
    },
    { kind: 'range', id: 'busy', label: 'Busy instances', unit: '', min: 0, max: 7, step: 1, value: 2 },
    {
      kind: 'range',
      id: 'activityPct',
      label: 'Activity of each busy instance',
      unit: '%',
      min: 0,
      max: 100,
      step: 0.1,
      value: 98.6,
    },
  ],
  view(v: Values) {
    const layout = LAYOUTS[String(v['layout'])] ?? LAYOUTS['2x3g']!;
    const sms = MIG_SMS[layout.profile];
    const busy = Math.min(Number(v['busy']), layout.count);
    const activity = Number(v['activityPct']) / 100;
    const level = gpuLevelActivity(sms, busy, activity);
    const x0 = 8;
    const w = 304;
    const sx = w / TOTAL_SMS;
    let svg = text(x0, 16, `${TOTAL_SMS} SMs in ${fmt(layout.count)} × ${layout.profile}`);
    for (let i = 0; i < layout.count; i++) {
      const x = x0 + i * sms * sx;
      svg += rect(x + 1, 24, sms * sx - 2, 50, 'fig-track');
      if (i < busy) svg += rect(x + 1, 24 + 50 * (1 - activity), sms * sx - 2, 50 * activity, 'fig-a');
    }
    svg +=
      text(x0, 96, `DCGM, each busy instance: ${fmt(activity * 100)}%`) +
      text(x0, 120, `DCGM, whole GPU: ${fmt(level * 100)}%`) +
      rect(x0, 128, w, 14, 'fig-track') +
      rect(x0, 128, w * level, 14, 'fig-b') +
      text(x0, 164, 'nvidia-smi GPU-Util: not supported in MIG mode', 'fig-t fig-s');
    const capped = Number(v['busy']) > layout.count ? `This layout has only ${fmt(layout.count)}: ` : '';
    const readout =
      capped +
      (busy === 0
        ? `No instance is busy: every instance and the whole GPU read 0%.`
        : `${fmt(busy)} busy ${layout.profile} instance${busy > 1 ? 's' : ''} at ${fmt(activity * 100)}% hold ${fmt(busy * sms)} of ${TOTAL_SMS} SMs, ` +
          `so the whole GPU reads ${fmt(level * 100)}%; nvidia-smi shows no GPU-Util in MIG mode.`);
    return { svg, readout };
  },
};

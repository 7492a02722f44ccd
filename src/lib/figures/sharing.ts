/**
 * Sharing one A100-40GB between tenants: time-slicing, MPS or MIG, what share of the GPU each tenant gets and what
 * each meter reports (content/cards/serving/mig.md, content/cards/serving/mps.md).
 *
 * The model, with n busy tenants whose kernels each keep `fill` of the SMs they may use busy, and always have work:
 *   time-slicing (no MPS): the GPU runs one process's context at a time and switches between them (gpu-facts 6.7,
 *     6.8), so each tenant gets 1/n of the time; GPU-Util reads 100% because some kernel is always running
 *     (gpu-facts 1.x: "one or more kernels"); device SM activity reads `fill`, the tenants' average, not their sum.
 *   MPS: kernels from different processes run at once (gpu-facts 6.7), so device SM activity is n × fill up to
 *     100%; past that each tenant gets 1/n of the SMs (an even split is assumed; real contention is uneven).
 *   MIG: each tenant owns an instance (1 × 7g.40gb, 2 × 3g.20gb, or n × 1g.5gb: 98, 42 or 14 SMs) with its own
 *     DCGM meters; the GPU-level value weighs each instance's activity by its share of the 98 SMs MIG hands out;
 *     nvidia-smi has no device GPU-Util in MIG mode (gpu-facts 1.12, 2.15, 6.5).
 * Device meters under time-slicing and MPS mix every tenant (gpu-facts 6.9): a per-tenant view needs per-process
 * accounting or each application's own throughput.
 */
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** SMs an A100-40GB's MIG profiles hold (gpu-facts 6.5): 14 per compute slice, 98 in all. */
export const MIG_SMS = { '1g.5gb': 14, '3g.20gb': 42, '7g.40gb': 98 } as const;
const TOTAL_MIG_SMS = MIG_SMS['7g.40gb'];

/** GPU-level activity (0–1) when `busy` MIG instances of `sms` SMs each are `activity` (0–1) active. */
export function gpuLevelActivity(sms: number, busy: number, activity: number): number {
  return (busy * sms * activity) / TOTAL_MIG_SMS;
}

/** How a GPU is shared. */
export type SharingMode = 'time-slicing' | 'mps' | 'mig';

/** The MIG profile the figure gives each of n tenants. */
export function migProfile(tenants: number): keyof typeof MIG_SMS {
  return tenants <= 1 ? '7g.40gb' : tenants === 2 ? '3g.20gb' : '1g.5gb';
}

/**
 * What each meter reads, and each tenant's share, for `tenants` busy tenants each filling `fill` (0–1) of its SMs.
 * `tenantRate` is each tenant's work per second against running alone on the SMs it may use.
 * @example sharing('time-slicing', 4, 0.22).smActivity // 0.22
 */
export function sharing(mode: SharingMode, tenants: number, fill: number) {
  if (tenants === 0) return { gpuUtil: 0, smActivity: 0, tenantRate: 0, timeShare: 0, smShare: 0 };
  if (mode === 'time-slicing')
    return { gpuUtil: 1, smActivity: fill, tenantRate: 1 / tenants, timeShare: 1 / tenants, smShare: fill };
  if (mode === 'mps') {
    const total = tenants * fill;
    return {
      gpuUtil: 1,
      smActivity: Math.min(1, total),
      tenantRate: Math.min(1, 1 / total),
      timeShare: 1,
      smShare: Math.min(fill, 1 / tenants),
    };
  }
  const sms = MIG_SMS[migProfile(tenants)];
  return {
    gpuUtil: null,
    smActivity: gpuLevelActivity(sms, tenants, fill),
    tenantRate: 1,
    timeShare: 1,
    smShare: (sms / TOTAL_MIG_SMS) * fill,
  };
}

const CLS = ['fig-a', 'fig-b'];

/** The GPU's SMs (up) over time (across) for each mode, in the box x0…x0+w, y0…y0+h. */
function drawShares(mode: SharingMode, n: number, fill: number, x0: number, y0: number, w: number, h: number) {
  let svg = rect(x0, y0, w, h, 'fig-track');
  const bottom = y0 + h;
  if (mode === 'time-slicing') {
    for (let i = 0; i < n; i++) svg += rect(x0 + (i * w) / n + 1, bottom - h * fill, w / n - 2, h * fill, CLS[i % 2]!);
  } else if (mode === 'mps') {
    const each = Math.min(fill, 1 / n);
    for (let i = 0; i < n; i++) svg += rect(x0, bottom - h * each * (i + 1), w, h * each - 1, CLS[i % 2]!);
  } else {
    const band = (h * MIG_SMS[migProfile(n)]) / TOTAL_MIG_SMS;
    for (let i = 0; i < n; i++) {
      const top = bottom - band * (i + 1);
      svg +=
        rect(x0, top + 1, w, band - 2, 'fig-track') +
        rect(x0, top + 1 + (band - 2) * (1 - fill), w, (band - 2) * fill, CLS[i % 2]!);
    }
  }
  return svg + text(x0 + w, y0 + h + 11, 'time →', 'fig-t fig-s', 'end') + text(x0, y0 - 3, 'SMs ↑', 'fig-t fig-s');
}

export const figure: FigureDef = {
  name: 'sharing',
  caption:
    'Sharing an A100-40GB: time-slicing, MPS or MIG, each tenant’s share and what each meter reports (tenants always have work; fill is on the SMs a tenant may use: the whole GPU, or its MIG instance)',
  controls: [
    {
      kind: 'select',
      id: 'mode',
      label: 'Sharing',
      options: [
        { value: 'time-slicing', label: 'Time-slicing (no MPS)' },
        { value: 'mps', label: 'MPS' },
        { value: 'mig', label: 'MIG' },
      ],
      value: 'mig',
    },
    { kind: 'range', id: 'tenants', label: 'Busy tenants', unit: '', min: 0, max: 7, step: 1, value: 2 },
    {
      kind: 'range',
      id: 'fillPct',
      label: 'SM activity of each tenant alone',
      unit: '%',
      min: 0,
      max: 100,
      step: 0.1,
      value: 98.6,
    },
  ],
  view(v: Values) {
    const mode = (['time-slicing', 'mps', 'mig'].includes(String(v['mode'])) ? v['mode'] : 'mig') as SharingMode;
    const n = Number(v['tenants']);
    const fill = Number(v['fillPct']) / 100;
    const r = sharing(mode, n, fill);
    const profile = migProfile(n);
    const sms = MIG_SMS[profile];
    const title =
      mode === 'mig'
        ? n === 0
          ? 'MIG: no instance busy'
          : `MIG: ${fmt(n)} × ${profile} (${sms} SMs each)`
        : `${mode === 'mps' ? 'MPS' : 'Time-slicing'}: ${fmt(n)} tenant${n === 1 ? '' : 's'} on 108 SMs`;
    const util = r.gpuUtil === null ? 'not supported in MIG mode' : pct(r.gpuUtil);
    const each =
      n === 0
        ? 'no tenant is running'
        : mode === 'time-slicing'
          ? `each tenant: 1/${fmt(n)} of the time, no meter of its own`
          : mode === 'mps'
            ? `each tenant: ${fmt(r.smShare * 100)}% of the SMs at once, no meter of its own`
            : `each instance’s own DCGM meter: ${fmt(fill * 100)}%`;
    const svg =
      text(8, 12, title, 'fig-t') +
      drawShares(mode, n, fill, 8, 30, 304, 62) +
      text(8, 122, `nvidia-smi GPU-Util: ${util}`, 'fig-t') +
      text(8, 140, `DCGM SM activity, whole GPU: ${fmt(r.smActivity * 100)}%`, 'fig-t') +
      text(8, 158, each, 'fig-t') +
      text(
        8,
        174,
        mode === 'mig' ? 'own memory and faults per instance' : 'memory and faults shared by all',
        'fig-t fig-s',
      );
    let readout: string;
    if (n === 0) readout = 'No tenant is busy: every meter reads 0%.';
    else if (mode === 'time-slicing')
      readout =
        n === 1
          ? `One tenant has the whole GPU to itself: GPU-Util reads 100% and SM activity ${fmt(r.smActivity * 100)}%.`
          : `${fmt(n)} tenants take turns on the whole GPU, each getting 1/${fmt(n)} of the time: ` +
            `GPU-Util reads 100% and SM activity ${fmt(r.smActivity * 100)}%, the same as one tenant alone, and no meter says whose work it is.`;
    else if (mode === 'mps')
      readout =
        `${n === 1 ? 'One tenant’s kernels run alone' : `${fmt(n)} tenants’ kernels run at once`}: SM activity reads ${fmt(r.smActivity * 100)}% at 100% GPU-Util, ` +
        (n * fill > 1
          ? `so the SMs are full and each tenant gets about 1/${fmt(n)} of them; `
          : `and ${n === 1 ? 'it keeps' : 'each tenant keeps'} ${fmt(r.smShare * 100)}% of the SMs busy; `) +
        `the device meters sum every tenant.`;
    else
      readout =
        `${fmt(n)} busy ${profile} instance${n > 1 ? 's' : ''} at ${fmt(fill * 100)}% ${n > 1 ? 'hold' : 'holds'} ${fmt(n * sms)} of 98 SMs, ` +
        `so the whole GPU reads ${fmt(r.smActivity * 100)}%; nvidia-smi shows no GPU-Util in MIG mode.`;
    return { svg, readout };
  },
};

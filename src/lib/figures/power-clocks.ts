/**
 * Power and clocks: how a power limit and the GPU's temperature set its SM clock, which clock event reasons turn
 * active, and what that does to compute-bound throughput (content/cards/meters/power-draw-and-limits.md,
 * content/cards/meters/clocks-and-clock-event-reasons.md; gpu-facts 3.5–3.10).
 *
 * The arithmetic, with r = clock ÷ max clock:
 *   board power P(r) = floor + dynamic(r), floor = 13% of TDP (memory, leakage, board: assumed constant);
 *   dynamic(r) = D · r · v(r)², dynamic power ≈ C·V²·f, with the voltage v(r) = 0.6 + 0.4·r of its top value
 *   (assumed linear), so power rises faster than clock near the top; D is what the work would draw above the floor
 *   at full clock (the "demand" control, as a share of TDP).
 *   sw_power_cap: when P(1) exceeds the limit, the clock drops to the r where P(r) = limit.
 *   sw_thermal_slowdown above the max operating temperature (assumed 87 °C here): 5% of clock off per degree over.
 *   hw_thermal_slowdown from the slowdown temperature (assumed 90 °C): the clock is halved, the least of the
 *   "2× or more" cut (gpu-facts 3.8, 3.9).
 *   Throughput of compute-bound work follows the clock; memory-bound work slows less.
 * The real voltage/frequency curve, floor power and temperature thresholds differ per card and per workload:
 * the shapes are right, the exact megahertz are not a prediction. Calibrated to the power card's example: an H100
 * SXM capped at 400 W runs at 1,200–1,400 MHz and about a third slower than at 700 W.
 */
import { GPU_SPECS, isGpuId, type GpuSpec } from '../gpu-specs.ts';
import { fmt, pct, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** Board power that does not scale with the SM clock, as a share of TDP (assumed). */
export const FLOOR_SHARE = 0.13;
/** Voltage at the lowest clock, as a share of the voltage at the top clock (assumed). */
const V0 = 0.6;
/** Lowest clock the figure lets the power cap reach, as a share of max clock (assumed). */
const R_MIN = 0.3;
/** Temperatures (°C) where the thermal reasons begin (assumed; `nvidia-smi -q -d TEMPERATURE` gives a card's own). */
export const MAX_OPERATING_C = 87;
export const SLOWDOWN_C = 90;

/** The GPUs the figure offers: those with a sourced max SM clock. */
const GPUS = Object.values(GPU_SPECS).filter((g) => g.maxSmClockMHz !== null);

/** Board power (W) at clock share `r` when the work would draw `demandShare` × TDP at full clock. */
export function boardPowerWatts(gpu: GpuSpec, demandShare: number, r: number): number {
  const floor = FLOOR_SHARE * gpu.tdpWatts;
  const dynamic = Math.max(0, demandShare * gpu.tdpWatts - floor);
  return floor + dynamic * r * (V0 + (1 - V0) * r) ** 2;
}

/** The clock event reasons the figure can show, as NVML and nvidia-smi name them. */
export type ClockReason = 'sw_power_cap' | 'sw_thermal_slowdown' | 'hw_thermal_slowdown';

/**
 * Where the GPU settles under a power limit (W, held at most at TDP) and a temperature (°C).
 * @example powerClocks('h100-sxm', 400, 60, 1.05).clockMHz // ≈ 1,285
 */
export function powerClocks(gpuId: string, powerLimitWatts: number, temperatureC: number, demandShare: number) {
  const gpu = isGpuId(gpuId) && GPU_SPECS[gpuId].maxSmClockMHz !== null ? GPU_SPECS[gpuId] : GPU_SPECS['h100-sxm'];
  const limitWatts = Math.min(powerLimitWatts, gpu.tdpWatts);
  // The clock the power limit allows (sw_power_cap when below full clock).
  let powerShare = 1;
  if (boardPowerWatts(gpu, demandShare, 1) > limitWatts) {
    let lo = R_MIN;
    let hi = 1;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (boardPowerWatts(gpu, demandShare, mid) > limitWatts) hi = mid;
      else lo = mid;
    }
    powerShare = lo;
  }
  // The reason shown is the one that holds the clock down; a hardware slowdown halves whatever it was.
  const reasons: ClockReason[] = [];
  let r = powerShare;
  if (temperatureC >= SLOWDOWN_C) {
    r = powerShare / 2;
    reasons.push('hw_thermal_slowdown');
  } else {
    const thermalShare = temperatureC > MAX_OPERATING_C ? 1 - 0.05 * (temperatureC - MAX_OPERATING_C) : 1;
    r = Math.min(powerShare, thermalShare);
    if (powerShare < 1 && powerShare <= thermalShare) reasons.push('sw_power_cap');
    if (thermalShare < powerShare) reasons.push('sw_thermal_slowdown');
  }
  const maxMHz = gpu.maxSmClockMHz!;
  return {
    gpu,
    limitWatts,
    clockMHz: r * maxMHz,
    /** Compute-bound throughput as a share of what full clock gives. */
    throughputShare: r,
    powerWatts: boardPowerWatts(gpu, demandShare, r),
    reasons,
    /** True when even the lowest clock the figure allows draws more than the limit. */
    belowFloor: boardPowerWatts(gpu, demandShare, R_MIN) > limitWatts,
  };
}

export const figure: FigureDef = {
  name: 'power-clocks',
  caption:
    'Power and clocks: the power limit and the temperature set the SM clock (power ≈ C·V²·f on an assumed voltage curve, thermal limits assumed at 87 and 90 °C; a real card’s own differ)',
  controls: [
    {
      kind: 'select',
      id: 'gpu',
      label: 'GPU',
      options: GPUS.map((g) => ({ value: g.id, label: `${g.label} (${g.tdpWatts} W TDP)` })),
      value: 'h100-sxm',
    },
    { kind: 'range', id: 'powerLimitWatts', label: 'Power limit', unit: 'W', min: 100, max: 700, step: 5, value: 700 },
    { kind: 'range', id: 'temperatureC', label: 'GPU temperature', unit: '°C', min: 30, max: 95, step: 1, value: 60 },
    {
      kind: 'range',
      id: 'demandPct',
      label: 'Power the work asks for at full clock',
      unit: '% of TDP',
      min: 20,
      max: 130,
      step: 1,
      value: 105,
    },
  ],
  view(v: Values) {
    const demand = Number(v['demandPct']) / 100;
    const temp = Number(v['temperatureC']);
    const r = powerClocks(String(v['gpu']), Number(v['powerLimitWatts']), temp, demand);
    const g = r.gpu;
    const maxMHz = g.maxSmClockMHz!;
    const x0 = 40;
    const y0 = 10;
    const w = 270;
    const h = 96;
    const pMax = 1.35 * g.tdpWatts;
    const px = (share: number) => x0 + w * share;
    const py = (watts: number) => y0 + h - (h * Math.min(watts, pMax)) / pMax;
    const points: string[] = [];
    for (let i = 0; i <= 24; i++) {
      const s = i / 24;
      points.push(`${px(s).toFixed(1)},${py(boardPowerWatts(g, demand, s)).toFixed(1)}`);
    }
    const ly = py(r.limitWatts);
    let svg =
      `<rect x="${x0}" y="${y0}" width="${w}" height="${h}" class="fig-track"/>` +
      text(2, 8, 'W', 'fig-t fig-s') +
      text(x0 - 3, py(g.tdpWatts) + 3, fmt(g.tdpWatts), 'fig-t fig-s', 'end') +
      text(x0 - 3, y0 + h, '0', 'fig-t fig-s', 'end') +
      text(x0, y0 + h + 12, '0', 'fig-t fig-s') +
      text(x0 + w, y0 + h + 12, `${fmt(maxMHz)} MHz SM clock`, 'fig-t fig-s', 'end') +
      `<polyline class="fig-line" points="${points.join(' ')}"/>` +
      `<line class="fig-limit" x1="${x0}" x2="${x0 + w}" y1="${ly}" y2="${ly}"/>` +
      text(x0 + 4, ly - 3, `limit ${fmt(r.limitWatts)} W`, 'fig-t fig-s') +
      `<circle class="fig-dot" cx="${px(r.throughputShare).toFixed(1)}" cy="${py(r.powerWatts).toFixed(1)}" r="5"/>`;
    const reasons = r.reasons.length ? r.reasons.join(', ') : 'none active';
    svg +=
      text(4, 136, `${fmt(r.clockMHz)} MHz at ${fmt(r.powerWatts)} W, ${fmt(temp)} °C`, 'fig-t fig-big') +
      text(4, 154, `clock event reasons: ${reasons}`, 'fig-t') +
      text(4, 172, `compute-bound throughput: ${pct(r.throughputShare)} of full clock`, 'fig-t');
    const why =
      r.reasons.length === 0
        ? `draws ${fmt(r.powerWatts)} W, under its ${fmt(r.limitWatts)} W limit, and runs at its full ${fmt(maxMHz)} MHz`
        : `runs at ${fmt(r.clockMHz)} MHz (${reasons}) and draws ${fmt(r.powerWatts)} W`;
    const floorNote = r.belowFloor
      ? ' This limit is below what the work can be held to; a real GPU refuses limits under power.min_limit.'
      : '';
    const held =
      Number(v['powerLimitWatts']) > g.tdpWatts
        ? `The figure holds the limit at the ${g.label}’s ${fmt(g.tdpWatts)} W TDP. `
        : '';
    const readout =
      held +
      `At a ${fmt(r.limitWatts)} W limit and ${fmt(temp)} °C, the ${g.label} ${why}: ` +
      `compute-bound work runs at ${pct(r.throughputShare)} of full-clock throughput.${floorNote}`;
    return { svg, readout };
  },
};

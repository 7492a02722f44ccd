/**
 * Power and clocks: how a power limit and the GPU's temperature set its SM clock, which clock event reasons turn
 * active, and what that does to compute-bound throughput (content/cards/meters/power-draw-and-limits.md,
 * content/cards/meters/clocks-and-clock-event-reasons.md; gpu-facts 3.5–3.10).
 *
 * Power: the site's one power model (src/lib/power-model.ts; the throttling lab uses the same): board power =
 * a 13% floor + C·V²·f on an assumed voltage curve, and under a limit the clock settles where power equals it
 * (sw_power_cap). Heat, with r = clock ÷ max SM clock:
 *   sw_thermal_slowdown above the max operating temperature (assumed 87 °C here): 5% of clock off per degree over.
 *   hw_thermal_slowdown from the slowdown temperature (assumed 90 °C): the clock is halved, the least of the
 *   "2× or more" cut (gpu-facts 3.8, 3.9).
 * Compute-bound throughput is the dense peak × clock ÷ the clock the peak is defined at (1,830 MHz on H100 SXM,
 * not its 1,980 MHz max; gpu-facts 9.1), so above that clock it exceeds the datasheet figure. Memory-bound work
 * slows less. Calibrated to the power card's example: an H100 SXM capped at 400 W runs at 1,200–1,400 MHz and
 * about a third slower than at 700 W; the exact megahertz are not a prediction for a given card.
 */
import { GPU_SPECS, isGpuId, peakShareAtClock, type GpuSpec } from '../gpu-specs.ts';
import { boardPowerWatts as modelPowerWatts, clockShareUnderLimit, R_MIN } from '../power-model.ts';
import { fmt, pct, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

export { FLOOR_SHARE } from '../power-model.ts';
/** Temperatures (°C) where the thermal reasons begin (assumed; `nvidia-smi -q -d TEMPERATURE` gives a card's own). */
export const MAX_OPERATING_C = 87;
export const SLOWDOWN_C = 90;

/** A GPU the figure can model: one with a TDP, a max SM clock and the clock its peak is defined at. */
type ClockedGpu = GpuSpec & { tdpWatts: number; maxSmClockMHz: number; peakClockMHz: number };
const isClocked = (g: GpuSpec): g is ClockedGpu =>
  g.tdpWatts !== null && g.maxSmClockMHz !== null && g.peakClockMHz !== null;

/** The GPUs the figure offers: those with a sourced TDP, max SM clock and peak clock. */
const GPUS = Object.values(GPU_SPECS).filter(isClocked);
const H100 = GPU_SPECS['h100-sxm'] as ClockedGpu;

/** Board power (W) at clock share `r` when the work would draw `demandShare` × TDP at full clock. */
export function boardPowerWatts(gpu: GpuSpec, demandShare: number, r: number): number {
  return modelPowerWatts(gpu.tdpWatts ?? 0, demandShare, r);
}

/** The clock event reasons the figure can show, as NVML and nvidia-smi name them. */
export type ClockReason = 'sw_power_cap' | 'sw_thermal_slowdown' | 'hw_thermal_slowdown';

/**
 * Where the GPU settles under a power limit (W, held at most at TDP) and a temperature (°C).
 * @example powerClocks('h100-sxm', 400, 60, 1.05).clockMHz // ≈ 1,285
 */
export function powerClocks(gpuId: string, powerLimitWatts: number, temperatureC: number, demandShare: number) {
  const known = isGpuId(gpuId) ? GPU_SPECS[gpuId] : null;
  const gpu = known && isClocked(known) ? known : H100;
  const limitWatts = Math.min(powerLimitWatts, gpu.tdpWatts);
  // The clock the power limit allows (sw_power_cap when below full clock).
  const powerShare = clockShareUnderLimit(gpu.tdpWatts, demandShare, limitWatts);
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
  const clockMHz = r * gpu.maxSmClockMHz;
  return {
    gpu,
    limitWatts,
    clockMHz,
    /** The clock as a share of the max SM clock. */
    clockShare: r,
    /** Compute-bound throughput as a share of the dense peak: clock ÷ the clock the peak is defined at. */
    peakShare: peakShareAtClock(gpu, clockMHz)!,
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
    const maxMHz = g.maxSmClockMHz;
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
      `<circle class="fig-dot" cx="${px(r.clockShare).toFixed(1)}" cy="${py(r.powerWatts).toFixed(1)}" r="5"/>`;
    const reasons = r.reasons.length ? r.reasons.join(', ') : 'none active';
    svg +=
      text(4, 136, `${fmt(r.clockMHz)} MHz at ${fmt(r.powerWatts)} W, ${fmt(temp)} °C`, 'fig-t fig-big') +
      text(4, 154, `clock event reasons: ${reasons}`, 'fig-t') +
      text(
        4,
        172,
        `compute-bound: ${pct(r.peakShare)} of the dense peak (defined at ${fmt(g.peakClockMHz)} MHz)`,
        'fig-t',
      );
    const why =
      r.reasons.length === 0
        ? `draws ${fmt(r.powerWatts)} W, ${fmt(r.powerWatts) === fmt(r.limitWatts) ? 'at' : 'under'} its ${fmt(r.limitWatts)} W limit, and runs at its full ${fmt(maxMHz)} MHz`
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
      `compute-bound work runs at ${pct(r.peakShare)} of the dense peak, which is defined at ${fmt(g.peakClockMHz)} MHz.${floorNote}`;
    return { svg, readout };
  },
};

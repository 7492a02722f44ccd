/**
 * Throttling, decided by the clock event reasons on their own: a limiting reason active in a good
 * share of samples means the clock is held down whatever GPU-Util reads, and the advice follows the
 * reason (card clocks-and-clock-event-reasons). Without reasons, a clock well under its maximum
 * while busy is only a medium-confidence hint. Pure.
 */
import type { GpuStats } from './stats.ts';
import type { Verdict } from './types.ts';
import { r0 } from './format.ts';

/** Share of reporting samples a limiting reason must be active in: one sample of HwSlowdown is noise. */
export const THROTTLE_SHARE = 0.3;

/**
 * Samples a limiting reason must be seen in for a throttled verdict of high confidence. A share from a handful of
 * samples is luck as much as evidence: a fleet's live view reads about 13 points in 5 minutes, and a GPU that meets
 * its power limit in 8% of its scrapes (as dense math does now and then, facts 3.7) shows it in 4 or more of 13 for
 * 1.8% of such GPUs (binomial), in 5 or more for 0.4%. Under this count the verdict stands, at medium confidence.
 */
export const THROTTLE_SAMPLES = 5;

const THERMAL = new Set(['SwThermalSlowdown', 'HwThermalSlowdown']);
/** A GPU die this cool is not what trips a thermal slowdown: the heat is elsewhere (memory). */
const COOL_DIE_C = 80;

/** The advice for the active reasons, most specific first. */
export function throttleAdvice(s: GpuStats, active: readonly string[]): string {
  const has = (r: string) => active.includes(r);
  const out: string[] = [];
  if (has('HwPowerBrakeSlowdown'))
    out.push(
      'HW power brake: the system asserts it (a PSU, power cabling or the server’s management controller after a power event); no software setting clears it. Check the PSUs and the BMC event log, or hand the node to its operator.',
    );
  if (active.some((r) => THERMAL.has(r))) {
    if (s.memTempC !== null)
      out.push(
        `Thermal slowdown with memory at ${r0(s.memTempC)} °C: cool the memory (airflow over the HBM/GDDR side, fan curve, inlet temperature).`,
      );
    else if (s.tempC !== null && s.tempC < COOL_DIE_C)
      out.push(
        `Thermal slowdown with a cool die (${r0(s.tempC)} °C): the heat is likely the memory junction. Read the memory temperature (\`nvidia-smi -q -d TEMPERATURE\`, Memory Current Temp; GeForce cards do not report it) and improve airflow over the memory.`,
      );
    else out.push('Thermal slowdown: check airflow, fans and inlet temperature before anything else.');
  }
  if (has('SwPowerCap')) {
    out.push(
      s.powerPct !== null && s.powerPct >= 90
        ? `SW power cap at ${r0(s.powerPct)}% of the ${r0(s.powerLimitW ?? 0)} W limit: expected under dense math, the limit doing its job. Check that the limit is the default (\`nvidia-smi -q -d POWER\`, Current vs Default Power Limit); only a lowered limit is worth restoring.`
        : 'SW power cap: compare the current and default power limits (`nvidia-smi -q -d POWER`); a limit set below the default costs clock speed.',
    );
  }
  if (has('HwSlowdown') && !has('HwPowerBrakeSlowdown') && !active.some((r) => THERMAL.has(r)))
    out.push(
      'HW slowdown (clocks cut by half or more): temperature, an external power brake or a power-draw fast trigger. Check temperatures and the power supply.',
    );
  if (has('SyncBoost')) out.push('Sync boost: the group runs at its slowest member; read the other GPUs’ reasons.');
  if (has('ApplicationsClocksSetting') || has('DisplayClockSetting'))
    out.push(
      'Clocks are held by a setting: `nvidia-smi -rac` and `nvidia-smi -rgc` reset application and locked clocks.',
    );
  return out.join(' ') || 'Read `nvidia-smi -q -d PERFORMANCE` to see which clock event reason is active.';
}

/** Throttled, or null when the readings do not show it. */
export function throttledVerdict(s: GpuStats): Verdict | null {
  const active = s.reasons.filter(([, f]) => f >= THROTTLE_SHARE).map(([r]) => r);
  const byReasons = s.limitingFrac !== null && s.limitingFrac >= THROTTLE_SHARE && active.length > 0;
  const busy = s.util.n > 0 && s.util.mean >= 85;
  const byClock = s.reasonSamples === 0 && busy && s.clockPct !== null && s.clockPct < 85;
  if (!byReasons && !byClock) return null;
  const ev: string[] = [];
  if (byReasons)
    ev.push(`clock event reasons: ${s.reasons.map(([r, f]) => `${r} (${r0(f * 100)}% of samples)`).join(', ')}`);
  if (s.clockMhz !== null)
    ev.push(
      `SM clock ${r0(s.clockMhz)} MHz${s.clockPct === null ? '' : `, ${r0(s.clockPct)}% of its ${r0(s.clockMaxMhz ?? 0)} MHz maximum`}`,
    );
  if (s.util.n > 0) ev.push(`GPU-Util ${r0(s.util.mean)}%`);
  if (s.powerW !== null)
    ev.push(`power ${r0(s.powerW)} W${s.powerPct === null ? '' : ` (${r0(s.powerPct)}% of the limit)`}`);
  if (s.tempC !== null) ev.push(`temperature ${r0(s.tempC)} °C`);
  if (s.memTempC !== null) ev.push(`memory temperature ${r0(s.memTempC)} °C`);
  if (!byReasons) ev.push('clock event reasons not reported by this source');
  return {
    kind: 'throttled',
    title: 'Throttled: the clock is held down',
    confidence: byReasons && s.limitingSamples >= THROTTLE_SAMPLES ? 'high' : 'medium',
    cardId: 'clocks-and-clock-event-reasons',
    evidence: ev,
    next: byReasons ? throttleAdvice(s, active) : throttleAdvice(s, []),
  };
}

/**
 * One rule for numbers in the diagnosis: **a reading is compared as it is shown.** `gpuStats` rounds every reading
 * to the precision the diagnosis text prints it with, before any rule reads it, so the thresholds and the text see
 * the same number: SM activity 79.6% is shown as "80%" and is not "below 80%"; 0.96 GiB is shown as "1.0 GiB
 * allocated" and counts as held. Percentages and shares are whole percents, watts, °C and MHz whole units, memory
 * tenths of a GiB. Rates (samples/s, tokens/s, steps/s) are the one exception: a slow loop's 0.3 steps/s must not
 * become 0 (a hang), so they keep their value and are printed with enough digits instead (`rateNumber`). Pure.
 */

/** A whole number, as "80%", "300 W", "1980 MHz" print it. @example whole(79.6) // 80 */
export const whole = (x: number | null): number | null => (x === null ? null : Math.round(x));

/** Tenths, as "24.6 GiB" prints it. @example tenth(0.96) // 1 */
export const tenth = (x: number | null): number | null => (x === null ? null : Math.round(x * 10) / 10);

/** A 0–1 share to a whole percent, as "waited 25% of the time" prints it. @example share(0.2496) // 0.25 */
export const share = (x: number | null): number | null => (x === null ? null : Math.round(x * 100) / 100);

/**
 * A rate as the text prints it: whole from 10 up, else two significant digits (a slow loop is not "0/s").
 * @example rateNumber(1234.4) // "1234"
 * @example rateNumber(0.347) // "0.35"
 */
export const rateNumber = (x: number): string =>
  x >= 10 || x === 0 ? String(Math.round(x)) : String(Number(x.toPrecision(2)));

/**
 * The one power model of the site: how a power limit sets the SM clock. The power-and-clocks figure
 * (src/lib/figures/power-clocks.ts), the simulator's throttled scenario and the throttling lab's numbers
 * (src/lib/lab/physics.ts) all use it, so the card, the figure and the lab agree on what a 400 W cap costs an H100.
 *
 * With r = SM clock ÷ max SM clock:
 *   board power P(r) = floor + dynamic · r · v(r)²   (dynamic power ≈ C·V²·f)
 *   floor = 13% of TDP (memory, leakage, board; assumed constant)
 *   v(r) = 0.6 + 0.4·r, the voltage as a share of its top value (assumed linear in clock)
 *   dynamic = demand − floor, where demand is what the work would draw at full clock
 *   under a limit below P(1), the clock settles at the r where P(r) = limit (sw_power_cap).
 * Compute-bound throughput follows the clock against the clock the dense peak is defined at (gpu-specs.ts
 * `peakShareAtClock`), not against the max. The curve and the floor are assumptions: the shape is right, the exact
 * megahertz are not a prediction for a given card.
 */

/** Board power that does not scale with the SM clock, as a share of TDP (assumed). */
export const FLOOR_SHARE = 0.13;
/** Voltage at the lowest clock, as a share of the voltage at the top clock (assumed). */
export const V0 = 0.6;
/** Lowest clock a power limit can hold the GPU to, as a share of max clock (assumed). */
export const R_MIN = 0.3;

/**
 * Board power (W) at clock share `r` for a GPU of `tdpWatts` when the work would draw `demandShare` × TDP at full
 * clock.
 * @example boardPowerWatts(700, 800 / 700, 1) // 800
 */
export function boardPowerWatts(tdpWatts: number, demandShare: number, r: number): number {
  const floor = FLOOR_SHARE * tdpWatts;
  const dynamic = Math.max(0, demandShare * tdpWatts - floor);
  return floor + dynamic * r * (V0 + (1 - V0) * r) ** 2;
}

/**
 * The clock share (of max SM clock) a power limit allows: 1 when the work fits under it, else the r where board
 * power equals the limit, never below R_MIN.
 * @example clockShareUnderLimit(700, 800 / 700, 400) // ≈ 0.611
 */
export function clockShareUnderLimit(tdpWatts: number, demandShare: number, limitWatts: number): number {
  if (boardPowerWatts(tdpWatts, demandShare, 1) <= limitWatts) return 1;
  let lo = R_MIN;
  let hi = 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (boardPowerWatts(tdpWatts, demandShare, mid) > limitWatts) hi = mid;
    else lo = mid;
  }
  return lo;
}

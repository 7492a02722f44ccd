/** Small shared pieces of the diagnosis rules: rounding, power and rate phrases, progress. Pure. */
import type { GpuStats } from './stats.ts';
import { rateNumber } from './shown.ts';

/** A reading as the evidence prints it; `gpuStats` has already rounded it so (shown.ts), the rules compare the same. */
export const r0 = (x: number): string => String(Math.round(x));

/** " at 300 W (43% of the 700 W limit)", or "" when power is not reported. */
export const powerText = (s: GpuStats): string =>
  s.powerW === null
    ? ''
    : ` at ${r0(s.powerW)} W${s.powerPct === null ? '' : ` (${r0(s.powerPct)}% of the ${r0(s.powerLimitW ?? 0)} W limit)`}`;

/** True when the training loop reports rates above zero. */
export function progressing(s: GpuStats): boolean {
  return [s.samplesPerSec, s.tokensPerSec, s.stepsPerSec].some((x) => x !== null && x > 0);
}

/** The reported rate as evidence, or nothing. */
export const rateText = (s: GpuStats): string[] =>
  s.samplesPerSec !== null
    ? [`${rateNumber(s.samplesPerSec)} samples/s`]
    : s.tokensPerSec !== null
      ? [`${rateNumber(s.tokensPerSec)} tokens/s`]
      : [];

/** User Timing measures of the store's work, read by bench/progress-browser.ts. */

/** The current high-resolution time, or undefined where there is none. */
export const nowMs = (): number | undefined => globalThis.performance?.now();

/** Records a measure `name` from `startMs` to now; a no-op where User Timing L3 is missing (old Safari). */
export function measure(name: string, startMs: number | undefined): void {
  try {
    if (startMs !== undefined) globalThis.performance?.measure?.(name, { start: startMs });
  } catch {
    /* nothing to measure with */
  }
}

/**
 * The peak of this process's JavaScript heap plus ArrayBuffers above where it stood when watching began (after a GC
 * when `--expose-gc`), sampled every `everyMs`: what a trace read holds at most (bench/trace.ts, bench/trace-2gb.ts).
 */
export function watchPeakMemory(everyMs: number): { peak(): number; stop(): number } {
  globalThis.gc?.();
  const base = process.memoryUsage();
  let peak = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed + m.arrayBuffers - base.heapUsed - base.arrayBuffers);
  };
  const timer = setInterval(sample, everyMs);
  return {
    /** The peak so far, with a sample taken now. */
    peak() {
      sample();
      return peak;
    },
    /** Takes a last sample, stops watching and returns the peak. */
    stop() {
      sample();
      clearInterval(timer);
      return peak;
    },
  };
}

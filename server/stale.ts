/**
 * Whether a reading taken at `reading.atMs` must be taken again at `nowMs`: there is none yet, it
 * is `maxAgeMs` old or older, or the clock went backwards (an NTP step) so its age cannot be told.
 * Shared by the queries the server reads less often than it ticks (host.ts, nvml/device.ts).
 */
export function isStale(reading: { atMs: number } | null, nowMs: number, maxAgeMs: number): boolean {
  return reading === null || nowMs - reading.atMs >= maxAgeMs || nowMs < reading.atMs;
}

/**
 * Whether a reading taken at `reading.atMs` must be taken again at `nowMs`: there is none yet, it
 * is `maxAgeMs` old or older, or the clock went backwards (an NTP step) so its age cannot be told.
 * Shared by the queries the lab server reads less often than it ticks (server/host.ts, server/nvml/device.ts).
 */
export function isStale(reading: { atMs: number } | null, nowMs: number, maxAgeMs: number): boolean {
  return reading === null || nowMs - reading.atMs >= maxAgeMs || nowMs < reading.atMs;
}

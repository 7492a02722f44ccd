/**
 * Energy per GPU since the server started, in mJ, integrated from each tick's power reading (W × ms = mJ):
 * the lab server's stand-in for DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION under `--dcgm-names`; and each host
 * core's idle seconds, for node-exporter's node_cpu_seconds_total. No imports, so
 * the server can keep it from the first tick without loading the exporter.
 */
export interface EnergyCounter {
  observe(m: {
    sampledAtMs: number;
    gpus: readonly { powerWatts: number | null }[];
    host: { perCorePct: readonly number[] } | null;
  }): void;
  /** mJ per GPU position; null where no power was ever read. */
  readonly mj: readonly (number | null)[];
  /** Idle seconds per host core (node-exporter's node_cpu_seconds_total{mode="idle"}). */
  readonly idleSeconds: readonly number[];
}

export function createEnergyCounter(): EnergyCounter {
  const mj: (number | null)[] = [];
  const idleSeconds: number[] = [];
  let lastMs: number | null = null;
  return {
    mj,
    idleSeconds,
    observe(m) {
      const dtMs = lastMs === null ? 0 : Math.max(0, m.sampledAtMs - lastMs);
      lastMs = m.sampledAtMs;
      m.gpus.forEach((g, i) => {
        if (g.powerWatts !== null) mj[i] = (mj[i] ?? 0) + g.powerWatts * dtMs;
        else mj[i] ??= null;
      });
      m.host?.perCorePct.forEach((pct, c) => {
        idleSeconds[c] = (idleSeconds[c] ?? 0) + ((100 - pct) / 100) * (dtMs / 1000);
      });
    },
  };
}

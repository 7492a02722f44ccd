/**
 * Energy per GPU since the server started, in mJ, integrated from each tick's power reading (W × ms = mJ):
 * the lab server's stand-in for DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION under `--dcgm-names`. No imports, so
 * the server can keep it from the first tick without loading the exporter.
 */
export interface EnergyCounter {
  observe(m: { sampledAtMs: number; gpus: readonly { powerWatts: number | null }[] }): void;
  /** mJ per GPU position; null where no power was ever read. */
  readonly mj: readonly (number | null)[];
}

export function createEnergyCounter(): EnergyCounter {
  const mj: (number | null)[] = [];
  let lastMs: number | null = null;
  return {
    mj,
    observe(m) {
      const dtMs = lastMs === null ? 0 : Math.max(0, m.sampledAtMs - lastMs);
      lastMs = m.sampledAtMs;
      m.gpus.forEach((g, i) => {
        if (g.powerWatts !== null) mj[i] = (mj[i] ?? 0) + g.powerWatts * dtMs;
        else mj[i] ??= null;
      });
    },
  };
}

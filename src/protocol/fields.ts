/**
 * Field lists of the wire format that code without zod needs (the NVML source loads no schema library):
 * metrics.ts re-exports them beside the schemas.
 */
/** The GPM (GPU Performance Monitoring) fields of a sample, null before Hopper and between GPM samples. */
export const GPM_FIELDS = [
  'smActivePct',
  'smOccupancyPct',
  'tensorActivePct',
  'dramActivePct',
  'fp16ActivePct',
  'fp32ActivePct',
  'fp64ActivePct',
] as const; // metrics.ts checks each is a GpuSample field (GPU_METRIC_FIELDS spreads it under `satisfies`)

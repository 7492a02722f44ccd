/**
 * Every number the fleet reads from Prometheus goes through one parser for its series type here, so one bad
 * reading spoils only itself: it becomes "no reading" with the reason, never a throw, a NaN in a sum or a
 * 14-digit percentage. Two kinds of no reading:
 * - a DCGM blank sentinel: DCGM's documented way to say "no value" (dcgm_structs.h: DCGM_INT32_BLANK
 *   0x7ffffff0, DCGM_INT64_BLANK 0x7ffffffffffffff0, DCGM_FP64_BLANK 2^47, each +1 "not found", +2 "not
 *   supported", +3 "not permissioned"; DCGM_*_IS_BLANK is `value >= BLANK`). The field is then null with
 *   the reason, as a series the exporter does not send; the GPU is judged on what remains.
 * - a corrupt value: NaN, ±Inf, a mask outside 0…2^32 − 1, a value outside what the quantity can be (a ratio
 *   of 5, a negative temperature of −300 °C). The field is null and the GPU's verdict is "can't tell" with
 *   the reason (`corrupt: true`): a source that sends one such value cannot be trusted for the rest.
 *
 * Pure and dependency-free, so the fleet reader, the audit and the verdict logic can all call it.
 */
import { clockEventReasonsFromMask } from '../../src/protocol/metrics.ts';

/** One parsed value: a number in the series' unit, or no reading with the reason. */
export type Reading =
  { value: number; reason: null; corrupt: false } | { value: null; reason: string; corrupt: boolean };

/** DCGM_INT32_BLANK (dcgm_structs.h). */
export const DCGM_INT32_BLANK = 0x7ffffff0;
/** DCGM_INT64_BLANK 0x7ffffffffffffff0: as a float64 (how Prometheus stores it) it rounds to 2^63. */
export const DCGM_INT64_BLANK = 2 ** 63 - 16;
/** DCGM_FP64_BLANK, 2^47: "FP 64 has 52 bits of mantissa, so 47 bits can still increment by 1". */
export const DCGM_FP64_BLANK = 2 ** 47;

/** What DCGM means by the offset from a blank base (dcgm_structs.h). */
const BLANK_MEANING = [
  'blank (DCGM has no value for it yet)',
  '"not found"',
  '"not supported" by this GPU or driver',
  '"not permissioned" (dcgm-exporter lacks the privilege to read it)',
];

/** How DCGM stores a field: its blank sentinels depend on it. */
export type DcgmType = 'int64' | 'fp64';

/** What a series measures: its valid range. */
export type Quantity =
  'percent' | 'ratio' | 'mib' | 'watts' | 'mhz' | 'celsius' | 'bytesPerSec' | 'mask' | 'code' | 'mj';

/** Each dcgm-exporter series the fleet reads: DCGM's field type (dcgm_fields.h) and what it measures. */
export const SERIES_TYPES: Readonly<Record<string, { dcgm: DcgmType; quantity: Quantity }>> = {
  DCGM_FI_DEV_GPU_UTIL: { dcgm: 'int64', quantity: 'percent' },
  DCGM_FI_DEV_MEM_COPY_UTIL: { dcgm: 'int64', quantity: 'percent' },
  DCGM_FI_PROF_GR_ENGINE_ACTIVE: { dcgm: 'fp64', quantity: 'ratio' },
  DCGM_FI_PROF_SM_ACTIVE: { dcgm: 'fp64', quantity: 'ratio' },
  DCGM_FI_PROF_SM_OCCUPANCY: { dcgm: 'fp64', quantity: 'ratio' },
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: { dcgm: 'fp64', quantity: 'ratio' },
  DCGM_FI_PROF_DRAM_ACTIVE: { dcgm: 'fp64', quantity: 'ratio' },
  DCGM_FI_DEV_FB_USED: { dcgm: 'int64', quantity: 'mib' },
  DCGM_FI_DEV_FB_FREE: { dcgm: 'int64', quantity: 'mib' },
  DCGM_FI_DEV_POWER_USAGE: { dcgm: 'fp64', quantity: 'watts' },
  DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: { dcgm: 'int64', quantity: 'mj' },
  DCGM_FI_DEV_SM_CLOCK: { dcgm: 'int64', quantity: 'mhz' },
  DCGM_FI_DEV_GPU_TEMP: { dcgm: 'int64', quantity: 'celsius' },
  DCGM_FI_DEV_MEMORY_TEMP: { dcgm: 'int64', quantity: 'celsius' },
  DCGM_FI_PROF_PCIE_TX_BYTES: { dcgm: 'int64', quantity: 'bytesPerSec' },
  DCGM_FI_PROF_PCIE_RX_BYTES: { dcgm: 'int64', quantity: 'bytesPerSec' },
  DCGM_FI_DEV_POWER_MGMT_LIMIT: { dcgm: 'fp64', quantity: 'watts' },
  DCGM_FI_DEV_CLOCKS_EVENT_REASONS: { dcgm: 'int64', quantity: 'mask' },
  DCGM_FI_DEV_CLOCK_THROTTLE_REASONS: { dcgm: 'int64', quantity: 'mask' }, // its name before dcgm-exporter 4.0
  DCGM_FI_DEV_XID_ERRORS: { dcgm: 'int64', quantity: 'code' },
};

/** [lowest, highest] each quantity can be; a little slack where DCGM rounds (101 %, a ratio of 1.01). */
const RANGES: Record<Quantity, readonly [number, number, string]> = {
  percent: [0, 101, 'a percentage is 0 to 100'],
  ratio: [0, 1.01, 'a ratio is 0 to 1'],
  mib: [0, 2 ** 31, 'memory in MiB is 0 to 2^31'],
  watts: [0, 10_000, 'a GPU draws 0 to 10 kW'],
  mhz: [0, 100_000, 'a clock is 0 to 100 GHz'],
  celsius: [-60, 250, 'a GPU temperature is −60 to 250 °C'],
  bytesPerSec: [0, 1e13, 'a PCIe rate is 0 to 10 TB/s'],
  mask: [0, 2 ** 32 - 1, 'a clock event mask is an integer from 0 to 2^32 − 1'],
  code: [0, 2 ** 32 - 1, 'an XID is an integer from 0 to 2^32 − 1'],
  mj: [0, 2 ** 63, 'an energy counter is 0 or more mJ'],
};

/** Quantities whose real values can land in DCGM's int32 blank range, where only a 64-bit blank is a sentinel. */
const INT32_BLANK_REAL = new Set<Quantity>(['bytesPerSec', 'mj']);

const fmt = (v: number): string => (Number.isNaN(v) ? 'NaN' : String(v));

/**
 * The DCGM blank sentinel `value` is, with its meaning, or null when it is none. A float64 from Prometheus
 * cannot tell the four 64-bit sentinels apart (they all round to 2^63); the 32-bit and float ones can.
 */
export function dcgmSentinel(value: number, type: DcgmType, quantity: Quantity | null = null): string | null {
  if (!Number.isFinite(value)) return null;
  if (value >= DCGM_INT64_BLANK)
    return "DCGM's 64-bit blank sentinel (blank, not found, not supported or not permissioned: Prometheus's float64 cannot tell which)";
  if (type === 'fp64' && value >= DCGM_FP64_BLANK) {
    const k = value - DCGM_FP64_BLANK;
    return `DCGM's float sentinel 2^47${k > 0 ? ` + ${k}` : ''}: ${BLANK_MEANING[k] ?? 'at or above DCGM_FP64_BLANK, so blank'}`;
  }
  if (
    type === 'int64' &&
    !(quantity && INT32_BLANK_REAL.has(quantity)) &&
    value >= DCGM_INT32_BLANK &&
    value < 2 ** 31
  ) {
    const k = value - DCGM_INT32_BLANK;
    return `DCGM's 32-bit sentinel 0x${value.toString(16)}: ${BLANK_MEANING[k] ?? 'at or above DCGM_INT32_BLANK, so blank'}`;
  }
  return null;
}

const none = (reason: string, corrupt: boolean): Reading => ({ value: null, reason, corrupt });
const ok = (value: number): Reading => ({ value, reason: null, corrupt: false });

/**
 * Parses one value of a series of `quantity` stored by DCGM as `type` (the series `name` is only for the
 * reason). Values a hair outside the range (rounding) are clamped into it.
 */
export function readValue(name: string, value: number, type: DcgmType, quantity: Quantity): Reading {
  if (!Number.isFinite(value)) return none(`${name} = ${fmt(value)}: not a number`, true);
  const sentinel = dcgmSentinel(value, type, quantity);
  if (sentinel) return none(`${name}: ${sentinel}`, false);
  const [lo, hi, words] = RANGES[quantity];
  const slack = quantity === 'ratio' || quantity === 'percent' ? 1e-6 * (hi - lo) : 0;
  if (value < lo - slack || value > hi) return none(`${name} = ${value}: ${words}`, true);
  if ((quantity === 'mask' || quantity === 'code') && !Number.isInteger(value))
    return none(`${name} = ${value}: ${words}`, true);
  return ok(Math.min(Math.max(value, lo), quantity === 'ratio' ? 1 : quantity === 'percent' ? 100 : hi));
}

/** Parses a value of a dcgm-exporter series by its name; a series not in SERIES_TYPES only needs to be finite. */
export function readDcgm(name: string, value: number): Reading {
  const t = SERIES_TYPES[name];
  if (t) return readValue(name, value, t.dcgm, t.quantity);
  return Number.isFinite(value) ? ok(value) : none(`${name} = ${fmt(value)}: not a number`, true);
}

/** The clock event reasons a mask sets (NVML names, unknown bits as `Unknown(0x…)`), or no reading. */
export function readClockEventMask(
  value: number,
  name = 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
): { reasons: string[] } | { reasons: null; reason: string; corrupt: boolean } {
  const r = readDcgm(name, value);
  if (r.value === null) return { reasons: null, reason: r.reason, corrupt: r.corrupt };
  return { reasons: clockEventReasonsFromMask(r.value) }; // an integer from 0 to 2^32 − 1: it cannot throw
}

/** A share of scrapes (0–1), as the segments query computes for each clock event reason. */
export function readShare(name: string, value: number): Reading {
  return readValue(name, value, 'fp64', 'ratio');
}

/**
 * The energy a GPU used over `windowS` from `increase(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[…])`, in mJ: finite,
 * not negative, and at most 10 kW on average (more is a sentinel in the counter, or a reset misread).
 */
export function readEnergyIncrease(valueMj: number, windowS: number): Reading {
  const name = 'increase(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION)';
  if (!Number.isFinite(valueMj)) return none(`${name} = ${fmt(valueMj)}: not a number`, true);
  if (valueMj < 0) return none(`${name} = ${valueMj}: energy used is 0 or more`, true);
  if (valueMj > windowS * 10_000 * 1000)
    return none(`${name} = ${valueMj} mJ: more than 10 kW on average, a DCGM sentinel in the counter`, true);
  return ok(valueMj);
}

/** A node-exporter value (CPU busy share, load, memory bytes): finite, else no reading. */
export function readHostValue(name: string, value: number): Reading {
  return Number.isFinite(value) ? ok(value) : none(`${name} = ${fmt(value)}: not a number`, true);
}

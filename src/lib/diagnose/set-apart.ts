/**
 * Which ranks of a synchronous job stand apart as its stragglers. Pure.
 *
 * The principle (card distributed-overlap-and-stragglers; PyTorch DDP design notes): in synchronous data parallelism
 * every rank waits at each collective for the slowest, and the wait runs inside NCCL kernels whose few spinning
 * blocks leave most SMs and the tensor pipes idle (gpu-facts 4.20, spinning.ts). So a straggler shows as one rank,
 * or a few, whose SM (or tensor) activity stands ABOVE a tight group: the others all lose the same share of each
 * step to the same wait, and read alike, lower. A spread alone is not that: ranks of a healthy job read their own
 * levels (a different clock, a different number of tokens per batch), spread evenly, with no gap.
 *
 * The numbers:
 * - The gap between the set-apart ranks and the group must be at least 12 points. On a rank at ~90% SM activity
 *   that is a wait of 12 ÷ 90 ≈ 13% of each step on every other rank (the card's example: 120 ms of 520 ms, 23%,
 *   ≈ 21 points at 90%); smaller waits are within what one job's ranks read apart when healthy.
 * - The gap must be larger than the spread inside the group and inside the set-apart ranks: "set apart from a tight
 *   group", not the top of an even spread. A uniform spread of 8 ranks puts its top rank above all the others by
 *   more than their own range with probability 1/64 (its 7 gaps share the range alike), and the 12-point floor
 *   must hold besides.
 * - At most half of the ranks are set apart (more than half is the group itself running faster).
 * - A second reading must agree where it is read on every rank: the set-apart ranks also read the higher tensor
 *   activity (when the gap is in SM activity) and the higher board power (waiting ranks draw less, facts 3.4).
 *
 * @example setApart([88, 66, 65, 67]) // [0]: one rank 21 points above a group 2 points wide
 * @example setApart([82, 94, 88, 90, 85, 92, 83, 87]) // []: an even spread, no gap
 */
export function setApart(work: readonly number[], minGap = STRAGGLER_GAP_PTS): number[] {
  const order = work.map((v, i) => ({ v, i })).sort((a, b) => b.v - a.v);
  let best: number[] = [];
  let bestGap = 0;
  for (let k = 1; k <= Math.floor(order.length / 2); k++) {
    const top = order.slice(0, k);
    const rest = order.slice(k);
    const gap = top[k - 1]!.v - rest[0]!.v;
    const spread = Math.max(top[0]!.v - top[k - 1]!.v, rest[0]!.v - rest[rest.length - 1]!.v);
    if (gap >= minGap && gap > spread && gap > bestGap) {
      best = top.map((x) => x.i);
      bestGap = gap;
    }
  }
  return best.sort((a, b) => a - b);
}

/** The least gap, in activity points, between a job's stragglers and its other ranks (see above). */
export const STRAGGLER_GAP_PTS = 12;

/**
 * True when a second reading agrees: every set-apart rank reads more than every other rank. Null readings (not
 * read on every rank) neither agree nor disagree.
 */
export function agrees(values: readonly (number | null)[], apart: readonly number[]): boolean {
  if (values.some((v) => v === null)) return true;
  const v = values as number[];
  const rest = v.filter((_, i) => !apart.includes(i));
  return Math.min(...apart.map((i) => v[i]!)) > Math.max(...rest);
}

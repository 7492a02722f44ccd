/**
 * A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014): the order of record versions across
 * devices. A stamp is (wall ms, counter, node); stamps compare in that order, so a total order. `send` stamps a
 * local change; `receive` moves the clock past a stamp seen from another device. The clock never goes back, even
 * when the device's clock does (a phone set a day behind keeps counting up from the newest stamp it has seen),
 * and a device whose clock is behind still wins with a change made after it saw the others'.
 * Pure: `now` is always passed in.
 */

/** One stamp. `node` is the device's random id, so two devices never tie. */
export interface Hlc {
  wall: number;
  counter: number;
  node: string;
}

/** The clock of a device that has stamped nothing yet. */
export const zeroHlc = (node: string): Hlc => ({ wall: 0, counter: 0, node });

/**
 * Orders two stamps: negative when `a` is older.
 * @example compareHlc({ wall: 5, counter: 0, node: 'a' }, { wall: 5, counter: 1, node: 'a' }) // < 0
 */
export function compareHlc(a: Hlc, b: Hlc): number {
  return a.wall - b.wall || a.counter - b.counter || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0);
}

/** A stamp for a local change at `now`, later than every stamp this clock has made or seen. */
export function send(clock: Hlc, now: number): Hlc {
  const wall = Math.max(clock.wall, Math.floor(now));
  return { wall, counter: wall === clock.wall ? clock.counter + 1 : 0, node: clock.node };
}

/** The clock after seeing `remote` at `now`: later than both. */
export function receive(clock: Hlc, remote: Hlc, now: number): Hlc {
  const wall = Math.max(clock.wall, remote.wall, Math.floor(now));
  let counter = 0;
  if (wall === clock.wall && wall === remote.wall) counter = Math.max(clock.counter, remote.counter) + 1;
  else if (wall === clock.wall) counter = clock.counter + 1;
  else if (wall === remote.wall) counter = remote.counter + 1;
  return { wall, counter, node: clock.node };
}

/** A stamp as text that sorts like `compareHlc` for walls and counters in range (storage, item ids). */
export function hlcToString(h: Hlc): string {
  return `${String(h.wall).padStart(15, '0')}.${String(h.counter).padStart(6, '0')}.${h.node}`;
}

/** Checks a stamp read from storage or another device; null when it is not one. */
export function parseHlc(v: unknown): Hlc | null {
  if (typeof v !== 'object' || v === null) return null;
  const { wall, counter, node } = v as Record<string, unknown>;
  if (!Number.isSafeInteger(wall) || (wall as number) < 0) return null;
  if (!Number.isSafeInteger(counter) || (counter as number) < 0) return null;
  if (typeof node !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(node)) return null;
  return { wall: wall as number, counter: counter as number, node };
}

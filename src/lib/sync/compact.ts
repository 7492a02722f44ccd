/**
 * Compaction of small event items (pure; src/client/sync/engine.ts does the I/O). A learner whose device syncs
 * after every answer pushes items of 1–3 events, each its own AES-GCM envelope; a new device's first pull of
 * 10,000 such events is ~3.1 MB. So each device remembers the small event items it knows of (pulled or pushed by
 * itself: item id → its event ids, `SyncLocal.small`), and once they hold enough, the next sync packs their events
 * again into full batches (batch.ts) and pushes them with `drop` naming exactly the small items whose every event
 * is in the new batches of that same request; the server drops them in the push's transaction.
 *
 * Safety: an item is dropped only in the request that stores (or finds already stored, by its id) batches holding
 * all its events, so at every commit the server holds each event at least once. An item whose events this device
 * does not hold (an import that skipped them, a damaged item) is forgotten, never dropped. Two devices compacting
 * at once each store their batches (the same events give the same batch id, so often a duplicate); drops are
 * idempotent, so at worst an event is stored twice, never lost.
 *
 * Numbers (measured with `makeAnswerEvents`, bytes on the wire per event of a pull page before gzip, packed with
 * `batchPlaintext`: 1 event an item 359 B, 3: 155 B, 10: 70 B, 20: 49 B, 50: 34 B, a full batch of ~130: 25 B):
 * - SMALL_ITEM_EVENTS = 50: an item of 50 events costs within 1.4× of a full batch (34 / 25), and a history all in
 *   items of 50 is 10,000 × 34 B = 0.34 MB, far under the 2 MB goal; fewer events an item cost up to 14× more.
 * - Compaction is due at 200 small items or 1,000 of their events: what stays uncompacted is then under 200 items
 *   holding under 1,000 events, at most ~0.11 MB on a new device's first pull (199 items of 5 events × 110 B),
 *   and compacting costs one push of ~1,000 × 25 B = 25 KB every ~200 syncs of a one-answer learner.
 * - Remembered at most 10,000 items and 20,000 event ids (~0.8 MB of state at worst, as much as `sentEventIds`
 *   for 20,000 events); a device reaches that only by pulling an old history of one event an item, which it then
 *   compacts 4,000 items a sync (a request drops at most 5,000 ids; the rest is left for record versions).
 */

/** Remembered small event items: item id → the ids of its events. */
export type SmallItems = Record<string, string[]>;

/** An event item as pulled or pushed: its id and the ids of its events. */
export interface EventItem {
  id: string;
  eventIds: readonly string[];
}

/** When compaction is due and how much it takes; the defaults are argued above. */
export interface CompactLimits {
  /** An item of fewer events is small. */
  smallEvents: number;
  /** Due at this many remembered small items … */
  minItems: number;
  /** … or this many events in them. */
  minEvents: number;
  /** Remembered at most (items, event ids). */
  maxItems: number;
  maxEventIds: number;
  /** Compacted at most in one sync. */
  perSync: number;
}

export const COMPACT_LIMITS: CompactLimits = {
  smallEvents: 50,
  minItems: 200,
  minEvents: 1000,
  maxItems: 10_000,
  maxEventIds: 20_000,
  perSync: 4000,
};

/**
 * Takes in event items pulled or pushed, in order: an item that holds every event of a remembered one (another
 * device compacted it) makes this device forget that one; an item of fewer than `smallEvents` events is
 * remembered, while the bounds allow.
 * @example noteItems({}, [{ id: 'x', eventIds: ['e1'] }]) // { x: ['e1'] }
 */
export function noteItems(
  small: Readonly<SmallItems>,
  items: readonly EventItem[],
  limits: CompactLimits = COMPACT_LIMITS,
): SmallItems {
  const out: SmallItems = { ...small };
  // event id → remembered items holding it: only items sharing an event with a pulled one are checked.
  const byEvent = new Map<string, Set<string>>();
  const index = (id: string, eventIds: readonly string[]) => {
    for (const e of eventIds) {
      let s = byEvent.get(e);
      if (!s) byEvent.set(e, (s = new Set()));
      s.add(id);
    }
  };
  for (const [id, eventIds] of Object.entries(out)) index(id, eventIds);
  let items_ = Object.keys(out).length;
  let eventIds_ = Object.values(out).reduce((n, e) => n + e.length, 0);
  for (const item of items) {
    const has = new Set(item.eventIds);
    const candidates = new Set(item.eventIds.flatMap((e) => [...(byEvent.get(e) ?? [])]));
    for (const id of candidates) {
      const held = out[id];
      if (id === item.id || !held || !held.every((e) => has.has(e))) continue;
      delete out[id];
      items_--;
      eventIds_ -= held.length;
    }
    const fits = items_ < limits.maxItems && eventIds_ + item.eventIds.length <= limits.maxEventIds;
    if (item.eventIds.length && item.eventIds.length < limits.smallEvents && !out[item.id] && fits) {
      out[item.id] = [...item.eventIds];
      index(item.id, item.eventIds);
      items_++;
      eventIds_ += item.eventIds.length;
    }
  }
  return out;
}

/** What the next push compacts: `items` to pack again (oldest first), `forget`: items with events not held here. */
export interface CompactionPlan {
  items: EventItem[];
  forget: string[];
}

/**
 * Picks the small items to compact when compaction is due: those whose every event this device holds (`held`:
 * the ids of the local log), at most `perSync`. Items with an event not held are returned in `forget`, due or not.
 * @example planCompaction({ x: ['e1'] }, new Set()).forget // ['x']
 */
export function planCompaction(
  small: Readonly<SmallItems>,
  held: ReadonlySet<string>,
  limits: CompactLimits = COMPACT_LIMITS,
): CompactionPlan {
  const ok: EventItem[] = [];
  const forget: string[] = [];
  let events = 0;
  for (const [id, eventIds] of Object.entries(small)) {
    if (eventIds.every((e) => held.has(e))) {
      ok.push({ id, eventIds });
      events += eventIds.length;
    } else forget.push(id);
  }
  const due = ok.length >= limits.minItems || events >= limits.minEvents;
  return { items: due ? ok.slice(0, limits.perSync) : [], forget };
}

/**
 * The compacted items one push request may drop: those whose every event is in the request's new batches, and
 * whose id is not one of theirs (a batch equal to a small item is stored once, under that id: it stays).
 * @example dropsFor([{ id: 'x', eventIds: ['e1'] }], [{ id: 'b', eventIds: ['e1', 'e2'] }]) // ['x']
 */
export function dropsFor(compacted: readonly EventItem[], batches: readonly EventItem[]): string[] {
  const inBatches = new Set(batches.flatMap((b) => b.eventIds));
  const batchIds = new Set(batches.map((b) => b.id));
  return compacted.filter((c) => !batchIds.has(c.id) && c.eventIds.every((e) => inBatches.has(e))).map((c) => c.id);
}

/**
 * The events of the log to pack for one push, in the log's order: those the server does not hold yet (`unsent`)
 * and those of the items being compacted.
 */
export function eventsToPack<E extends { id: string }>(
  log: readonly E[],
  sent: ReadonlySet<string>,
  compacted: readonly EventItem[],
): E[] {
  const again = new Set(compacted.flatMap((c) => c.eventIds));
  return log.filter((e) => !sent.has(e.id) || again.has(e.id));
}

/** `small` without `ids`. */
export function forgetItems(small: Readonly<SmallItems>, ids: Iterable<string>): SmallItems {
  const out: SmallItems = { ...small };
  for (const id of ids) delete out[id];
  return out;
}

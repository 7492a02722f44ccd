/**
 * Tells other tabs of this site that the log changed. BroadcastChannel carries the new events
 * themselves (the receiver validates them and merges by id, no IndexedDB read); where it is
 * missing (Safari < 15.4), a localStorage write fires a `storage` event and the others reload.
 */
import * as z from 'zod/mini';
import { type ProgressEvent } from '../schemas/progress-event.ts';
import { parseEvent } from '../schemas/parse-event.ts';

import { CHANNEL_NAME, PING_KEY } from './record.ts';

export { CHANNEL_NAME };

const MessageSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('events'),
    from: z.string(),
    events: z.array(z.unknown()).check(z.maxLength(100_000)),
  }),
  z.strictObject({ kind: z.literal('reload'), from: z.string() }),
]);

export interface TabSync {
  /** Sends new events to the other tabs. */
  events(events: readonly ProgressEvent[]): void;
  /** Asks the other tabs to reload everything (after an import or a quarantine). */
  reload(): void;
  close(): void;
}

/**
 * Joins the tabs' channel. `onEvents` gets validated events from another tab; `onReload` is
 * called when another tab asks for it or sends something that does not validate.
 */
export function joinTabs(
  onEvents: (events: ProgressEvent[]) => void,
  onReload: () => void,
  name = CHANNEL_NAME,
): TabSync {
  const self = Math.random().toString(36).slice(2);
  const receive = (data: unknown) => {
    const msg = MessageSchema.safeParse(data);
    if (!msg.success || msg.data.from === self) return;
    if (msg.data.kind === 'reload') return onReload();
    const events: ProgressEvent[] = [];
    for (const raw of msg.data.events) {
      const e = parseEvent(raw);
      if (!e.success) return onReload(); // the database is the truth: read it (and quarantine there)
      events.push(e.data);
    }
    onEvents(events);
  };
  if (typeof BroadcastChannel !== 'undefined') {
    const ch = new BroadcastChannel(name);
    ch.onmessage = (e: MessageEvent) => receive(e.data);
    const post = (m: unknown) => {
      try {
        ch.postMessage(m);
      } catch {
        /* closed channel: nothing to tell */
      }
    };
    return {
      events: (events) => post({ kind: 'events', from: self, events }),
      reload: () => post({ kind: 'reload', from: self }),
      close: () => ch.close(),
    };
  }
  if (typeof window !== 'undefined' && typeof localStorage !== 'undefined') {
    const listener = (e: StorageEvent) => {
      if (e.key === PING_KEY) onReload();
    };
    window.addEventListener('storage', listener);
    const ping = () => {
      try {
        localStorage.setItem(PING_KEY, `${Date.now()}-${self}`);
      } catch {
        /* storage disabled: other tabs refresh on their next load */
      }
    };
    return { events: ping, reload: ping, close: () => window.removeEventListener('storage', listener) };
  }
  return { events: () => {}, reload: () => {}, close: () => {} };
}

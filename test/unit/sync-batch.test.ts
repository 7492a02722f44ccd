/**
 * Events packed several to an item and compressed (envelope version 2, src/lib/sync/batch.ts): round trip, old
 * single-event items still read, stable ids on a retried push, nothing in clear, damaged items skipped.
 */
import { describe, expect, test } from 'vitest';
import { accountKeys, newSecret } from '../../src/lib/sync/keys.ts';
import { batchItemId, decryptItem, encryptItem } from '../../src/lib/sync/items.ts';
import { BATCH_PLAIN_BYTES, batchPlaintext, packEvents } from '../../src/lib/sync/batch.ts';
import { fromB64u, randomBytes, toB64u } from '../../src/lib/sync/bytes.ts';
import { SyncItemSchema } from '../../src/protocol/sync.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const events = makeAnswerEvents(1000);

describe('packed, compressed event items', () => {
  test('1,000 events pack into items under 64 KiB that decrypt back to the same events, in order', async () => {
    const keys = await accountKeys(newSecret());
    const runs = packEvents(events);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.flat()).toEqual(events);
    const items = await Promise.all(runs.map((run) => encryptItem(keys, { kind: 'events', events: run })));
    for (const item of items) expect(SyncItemSchema.parse(item)).toEqual(item);
    const back = await Promise.all(items.map((it) => decryptItem(keys, it)));
    expect(back.flatMap((p) => ('events' in p ? p.events : []))).toEqual(events);
    // Smaller than one item an event (the version-1 format): compression pays.
    const single = await Promise.all(events.map((event) => encryptItem(keys, { kind: 'event', event })));
    expect(JSON.stringify(items).length * 2).toBeLessThan(JSON.stringify(single).length);
  });

  test('a version-1 item (one event, as servers already hold) still reads', async () => {
    const keys = await accountKeys(newSecret());
    const old = await encryptItem(keys, { kind: 'event', event: events[0] });
    expect(await decryptItem(keys, old)).toEqual({ kind: 'event', event: events[0] });
  });

  test('a retried push gives the same item ids (the server dedupes), whatever the order of ids', async () => {
    const keys = await accountKeys(newSecret());
    const once = await Promise.all(packEvents(events).map((r) => encryptItem(keys, { kind: 'events', events: r })));
    const again = await Promise.all(packEvents(events).map((r) => encryptItem(keys, { kind: 'events', events: r })));
    expect(again.map((i) => i.id)).toEqual(once.map((i) => i.id));
    expect(again[0]!.data).not.toBe(once[0]!.data);
    const ids = events.slice(0, 3).map((e) => e.id);
    expect(await batchItemId(keys, ids)).toBe(await batchItemId(keys, [...ids].reverse()));
  });

  test('an item holds no event id or time in clear, in its id or its decoded bytes', async () => {
    const keys = await accountKeys(newSecret());
    const run = events.slice(0, 50);
    const item = await encryptItem(keys, { kind: 'events', events: run });
    const raw = Buffer.from([...fromB64u(item.id), ...fromB64u(item.iv), ...fromB64u(item.data)]).toString('latin1');
    const wire = JSON.stringify(item) + raw;
    for (const e of run) for (const clear of [e.id, String(e.at), e.questionId]) expect(wire).not.toContain(clear);
  });

  test('a damaged or truncated compressed item is skipped with a reason; the other items still read', async () => {
    const keys = await accountKeys(newSecret());
    const seal = async (plain: Uint8Array<ArrayBuffer>) => {
      const iv = randomBytes(12);
      const data = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, keys.enc, plain));
      return { id: 'x'.repeat(22), kind: 'event' as const, iv: toB64u(iv), data: toB64u(data) };
    };
    const plain = await batchPlaintext(events.slice(0, 100));
    const truncated = await seal(plain.slice(0, Math.floor(plain.length / 2)));
    const garbled = plain.slice();
    garbled.fill(0xff, 1, 40);
    const corrupt = await seal(garbled);
    const good = await encryptItem(keys, { kind: 'events', events: events.slice(100, 110) });
    const read = await Promise.all([truncated, corrupt, good].map((it) => decryptItem(keys, it)));
    expect(read[0]).toEqual({ skip: expect.stringContaining('does not inflate') });
    expect(read[1]).toHaveProperty('skip');
    expect(read[2]).toEqual({ kind: 'events', events: events.slice(100, 110) });
  });

  test('packing keeps runs under the plaintext budget, a larger lone event gets a run of its own', () => {
    const big = { id: 'big', pad: 'x'.repeat(BATCH_PLAIN_BYTES) };
    const runs = packEvents([{ id: 'a' }, big, { id: 'b' }]);
    expect(runs).toEqual([[{ id: 'a' }], [big], [{ id: 'b' }]]);
  });
});

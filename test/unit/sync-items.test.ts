import { describe, expect, test } from 'vitest';
import { accountKeys, newSecret } from '../../src/lib/sync/keys.ts';
import { decryptItem, encryptItem, eventItemId, recordKeyId } from '../../src/lib/sync/items.ts';
import { toB64u, utf8 } from '../../src/lib/sync/bytes.ts';
import { SyncItemSchema } from '../../src/protocol/sync.ts';
import { answerEvent } from './answer-event.ts';

describe('items', () => {
  test('an event goes out as ciphertext the server cannot read, and comes back the same', async () => {
    const keys = await accountKeys(newSecret());
    const event = answerEvent('occupancy-basics', 1_774_000_000_000, true);
    const item = await encryptItem(keys, { kind: 'event', event });
    expect(SyncItemSchema.parse(item)).toEqual(item);
    const wire = JSON.stringify(item);
    for (const clear of ['occupancy-basics', event.id, String(event.at), 'answer']) expect(wire).not.toContain(clear);
    expect(await decryptItem(keys, item)).toEqual({ kind: 'event', event });
    expect(item.id).toBe(await eventItemId(keys, event.id));
  });

  test('the same event encrypts differently each time (random IV) under one stable id', async () => {
    const keys = await accountKeys(newSecret());
    const event = answerEvent('q1', 5, true);
    const [a, b] = await Promise.all([
      encryptItem(keys, { kind: 'event', event }),
      encryptItem(keys, { kind: 'event', event }),
    ]);
    expect(a.id).toBe(b.id);
    expect(a.iv).not.toBe(b.iv);
    expect(a.data).not.toBe(b.data);
  });

  test('a record version carries its HLC inside; the server sees only an HMAC of its key', async () => {
    const keys = await accountKeys(newSecret());
    const record = { key: 'rhythm', hlc: { wall: 10, counter: 2, node: 'dev1' }, value: { goal: 20 } };
    const item = await encryptItem(keys, { kind: 'record', record });
    expect(item.key).toBe(await recordKeyId(keys, 'rhythm'));
    expect(JSON.stringify(item)).not.toContain('rhythm');
    expect(await decryptItem(keys, item)).toEqual({ kind: 'record', record });
    const tomb = { key: 'quiz:x', hlc: { wall: 11, counter: 0, node: 'dev1' }, deleted: true as const };
    expect(await decryptItem(keys, await encryptItem(keys, { kind: 'record', record: tomb }))).toEqual({
      kind: 'record',
      record: tomb,
    });
  });

  test("another account's item, a damaged item, or a newer envelope is skipped, not thrown", async () => {
    const mine = await accountKeys(newSecret());
    const theirs = await accountKeys(newSecret());
    const item = await encryptItem(theirs, { kind: 'event', event: answerEvent('q1', 1, false) });
    expect(await decryptItem(mine, item)).toEqual({ skip: 'does not decrypt under this account key' });
    expect(await decryptItem(mine, { ...item, data: 'AAAA' })).toHaveProperty('skip');
    const iv = new Uint8Array(12);
    const data = await globalThis.crypto.subtle.encrypt({ name: 'AES-GCM', iv }, mine.enc, utf8('{"v":2,"event":{}}'));
    expect(await decryptItem(mine, { kind: 'event', iv: toB64u(iv), data: toB64u(new Uint8Array(data)) })).toEqual({
      skip: 'envelope version 2',
    });
  });
});

/**
 * Items as the server stores them (`SyncItem`, src/protocol/sync.ts): the plaintext is a versioned JSON envelope,
 * encrypted with AES-GCM under the account key with a fresh 12-byte IV; ids are the first 16 bytes of an HMAC of
 * the plaintext id, so the server sees no card id, question id or time.
 *
 * Envelope, version 1:
 *   `{ "v": 1, "event": <ProgressEvent> }`                        an event of the log (union by id)
 *   `{ "v": 1, "record": { key, hlc, value } }`                    one version of a record (last writer wins)
 *   `{ "v": 1, "record": { key, hlc, deleted: true } }`            a tombstone: the record was removed
 * Version 2 (batch.ts): several events in one item, compressed: `{ "v": 2, "events": [...] }`, read here too.
 * A newer `v` is skipped by this release (`decryptItem` returns `{ skip }`), never misread.
 */
import type { SyncItem } from '../../protocol/sync.ts';
import type { AccountKeys } from './keys.ts';
import { fromB64u, fromUtf8, randomBytes, toB64u, utf8 } from './bytes.ts';
import { hlcToString, parseHlc, type Hlc } from './hlc.ts';
import { BATCH_MAGIC, batchPlaintext, readBatchPlaintext } from './batch.ts';

export const ENVELOPE_VERSION = 1;

/** One version of a record: a value, or a tombstone (`deleted`). */
export type RecordVersion =
  { key: string; hlc: Hlc; value: unknown; deleted?: undefined } | { key: string; hlc: Hlc; deleted: true };

/** What an item holds once decrypted. */
export type Plain =
  | { kind: 'event'; event: unknown }
  | { kind: 'events'; events: readonly unknown[] }
  | { kind: 'record'; record: RecordVersion };

/** An item that could not be read: a newer envelope, or damaged. `reason` is for logs and tests. */
export interface Skipped {
  skip: string;
}

const subtle = () => globalThis.crypto.subtle;

/** base64url of the first 16 bytes of HMAC(id key, text). */
export async function hmacId(keys: AccountKeys, text: string): Promise<string> {
  const mac = await subtle().sign('HMAC', keys.id, utf8(text));
  return toB64u(new Uint8Array(mac, 0, 16));
}

/** The item id of an event. */
export const eventItemId = (keys: AccountKeys, eventId: string) => hmacId(keys, `event:${eventId}`);
/** The item id of a batch of events: HMAC of its sorted event ids (the same on a retried push). */
export const batchItemId = (keys: AccountKeys, eventIds: readonly string[]) =>
  hmacId(keys, `batch:${[...eventIds].sort().join('\n')}`);
/** The item id of one version of a record. */
export const recordItemId = (keys: AccountKeys, key: string, hlc: Hlc) =>
  hmacId(keys, `record:${key}@${hlcToString(hlc)}`);
/** The server-visible key of a record (the same for all its versions). */
export const recordKeyId = (keys: AccountKeys, key: string) => hmacId(keys, `record-key:${key}`);

const idOf = (event: unknown) => {
  const id = (event as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') throw new Error('An event to sync needs its string id.');
  return id;
};

/** Encrypts an event, a batch of events (compressed, version 2) or a record version into an item ready to push. */
export async function encryptItem(keys: AccountKeys, plain: Plain): Promise<SyncItem> {
  const iv = randomBytes(12);
  const bytes =
    plain.kind === 'events'
      ? await batchPlaintext(plain.events)
      : utf8(
          JSON.stringify(
            plain.kind === 'event'
              ? { v: ENVELOPE_VERSION, event: plain.event }
              : { v: ENVELOPE_VERSION, record: plain.record },
          ),
        );
  const data = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv }, keys.enc, bytes));
  if (plain.kind === 'events') {
    const id = await batchItemId(keys, plain.events.map(idOf));
    return { id, kind: 'event', iv: toB64u(iv), data: toB64u(data) };
  }
  if (plain.kind === 'event') {
    return { id: await eventItemId(keys, idOf(plain.event)), kind: 'event', iv: toB64u(iv), data: toB64u(data) };
  }
  const { key, hlc } = plain.record;
  return {
    id: await recordItemId(keys, key, hlc),
    kind: 'record',
    key: await recordKeyId(keys, key),
    iv: toB64u(iv),
    data: toB64u(data),
  };
}

/** Reads an envelope's JSON; what is not a version-1 event or record is skipped, with the reason. */
export function readEnvelope(kind: SyncItem['kind'], json: unknown): Plain | Skipped {
  if (typeof json !== 'object' || json === null) return { skip: 'not an object' };
  const env = json as Record<string, unknown>;
  if (env['v'] !== ENVELOPE_VERSION) return { skip: `envelope version ${String(env['v'])}` };
  if (kind === 'event') return 'event' in env ? { kind: 'event', event: env['event'] } : { skip: 'no event' };
  const r = env['record'] as Record<string, unknown> | undefined;
  const hlc = parseHlc(r?.['hlc']);
  if (!r || typeof r['key'] !== 'string' || !hlc) return { skip: 'not a record' };
  if (r['deleted'] === true) return { kind: 'record', record: { key: r['key'], hlc, deleted: true } };
  if (!('value' in r)) return { skip: 'a record with no value' };
  return { kind: 'record', record: { key: r['key'], hlc, value: r['value'] } };
}

/** Decrypts an item. Another account's item, or one damaged on the way, is skipped, never thrown. */
export async function decryptItem(
  keys: AccountKeys,
  item: Pick<SyncItem, 'kind' | 'iv' | 'data'>,
): Promise<Plain | Skipped> {
  let bytes: Uint8Array;
  try {
    const plain = await subtle().decrypt({ name: 'AES-GCM', iv: fromB64u(item.iv) }, keys.enc, fromB64u(item.data));
    bytes = new Uint8Array(plain);
  } catch {
    return { skip: 'does not decrypt under this account key' };
  }
  if (bytes[0] === BATCH_MAGIC) {
    if (item.kind !== 'event') return { skip: 'a batch of events in a record item' };
    try {
      return { kind: 'events', events: await readBatchPlaintext(bytes) };
    } catch (e) {
      return { skip: e instanceof Error ? e.message : String(e) };
    }
  }
  if (bytes[0] !== 0x7b) return { skip: `envelope version byte ${bytes[0] ?? 'none'}` };
  let text: string;
  try {
    text = fromUtf8(bytes);
  } catch {
    return { skip: 'not UTF-8' };
  }
  try {
    return readEnvelope(item.kind, JSON.parse(text));
  } catch {
    return { skip: 'not JSON' };
  }
}

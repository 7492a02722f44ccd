/**
 * A test client of the sync server that does what the browser does, in Node: WebCrypto keys derived as
 * `src/protocol/sync.ts` says (account key K, recovery key R, HKDF, HMAC'd item ids, AES-GCM items) and
 * passkeys from the software authenticator. Used by the sync tests and the bench.
 */
import {
  SYNC_INFO,
  type PullResult,
  type PushResult,
  type SignedIn,
  type StoredItem,
  type SyncItem,
} from '../../src/protocol/sync.ts';
import { softAuthenticator, type SoftPasskey } from './authenticator.ts';

const webcrypto = globalThis.crypto;
const subtle = webcrypto.subtle;
const b64u = (b: ArrayBuffer | Uint8Array) => Buffer.from(b as ArrayBuffer).toString('base64url');
const enc = new TextEncoder();

/** HKDF-SHA-256 with an empty salt: 32 bytes of `ikm` for `info`. */
export async function hkdf(ikm: Uint8Array, info: string): Promise<Uint8Array> {
  const key = await subtle.importKey('raw', ikm as BufferSource, 'HKDF', false, ['deriveBits']);
  return new Uint8Array(
    await subtle.deriveBits(
      { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(), info: enc.encode(info) },
      key,
      256,
    ),
  );
}

/** A learner's secrets: account key K and recovery key R, and what derives from them. */
export interface Secrets {
  k: Uint8Array;
  r: Uint8Array;
  aes: CryptoKey;
  idKey: CryptoKey;
}

/** Fresh K and R (or these), with K's AES-GCM key and item-id HMAC key. */
export async function newSecrets(
  k = webcrypto.getRandomValues(new Uint8Array(32)),
  r = webcrypto.getRandomValues(new Uint8Array(32)),
): Promise<Secrets> {
  const aes = await subtle.importKey('raw', k as BufferSource, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const idKey = await subtle.importKey(
    'raw',
    (await hkdf(k, SYNC_INFO.itemId)) as BufferSource,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return { k, r, aes, idKey };
}

/** base64url of HKDF(R, "saturate/recovery-auth"). */
export const recoveryAuth = async (r: Uint8Array) => b64u(await hkdf(r, SYNC_INFO.recoveryAuth));

/** K wrapped under HKDF(R, "saturate/recovery-wrap"). */
export async function wrapForRecovery(s: Secrets): Promise<{ iv: string; data: string }> {
  const key = await subtle.importKey(
    'raw',
    (await hkdf(s.r, SYNC_INFO.recoveryWrap)) as BufferSource,
    'AES-GCM',
    false,
    ['encrypt'],
  );
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  return { iv: b64u(iv), data: b64u(await subtle.encrypt({ name: 'AES-GCM', iv }, key, s.k as BufferSource)) };
}

/** An event as the browser logs it (plaintext; never sent as is). */
export interface PlainEvent {
  id: string;
  cardId: string;
  questionId: string;
  answer: string;
  at: string;
}

/** Encrypts an event into an opaque item: HMAC'd id, AES-GCM data. */
export async function sealEvent(s: Secrets, e: PlainEvent): Promise<SyncItem> {
  const mac = new Uint8Array(await subtle.sign('HMAC', s.idKey, enc.encode(e.id)));
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  const data = await subtle.encrypt({ name: 'AES-GCM', iv }, s.aes, enc.encode(JSON.stringify(e)));
  return { id: b64u(mac.slice(0, 16)), kind: 'event', iv: b64u(iv), data: b64u(data) };
}

/** Decrypts an item back to its event. */
export async function openEvent(s: Secrets, item: StoredItem): Promise<PlainEvent> {
  const data = await subtle.decrypt(
    { name: 'AES-GCM', iv: Buffer.from(item.iv, 'base64url') },
    s.aes,
    Buffer.from(item.data, 'base64url'),
  );
  return JSON.parse(new TextDecoder().decode(data)) as PlainEvent;
}

/** Encrypts several events into one item, as a device packing them does: id HMAC("batch:" + sorted event ids),
 * so the same events give the same id on any device. */
export async function sealBatch(s: Secrets, events: PlainEvent[]): Promise<SyncItem> {
  const name = `batch:${events
    .map((e) => e.id)
    .sort()
    .join('\n')}`;
  const mac = new Uint8Array(await subtle.sign('HMAC', s.idKey, enc.encode(name)));
  const iv = webcrypto.getRandomValues(new Uint8Array(12));
  const data = await subtle.encrypt({ name: 'AES-GCM', iv }, s.aes, enc.encode(JSON.stringify(events)));
  return { id: b64u(mac.slice(0, 16)), kind: 'event', iv: b64u(iv), data: b64u(data) };
}

/** The events of an item sealed by `sealEvent` (one) or `sealBatch` (several). */
export async function openEvents(s: Secrets, item: StoredItem): Promise<PlainEvent[]> {
  const opened = (await openEvent(s, item)) as PlainEvent | PlainEvent[];
  return Array.isArray(opened) ? opened : [opened];
}

/** A device talking to one sync server. */
export class SyncClient {
  base: string;
  origin: string;
  rpId: string;
  token: string | null = null;
  accountId: string | null = null;
  cursor = '0';
  constructor(base: string, origin: string, rpId: string) {
    this.base = base;
    this.origin = origin;
    this.rpId = rpId;
  }
  /** A raw call: the Response, for tests that check statuses. */
  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.base}/v1${path}`, {
      method,
      headers: {
        origin: this.origin,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }
  /** A call that must succeed; throws with the server's message otherwise. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.call(method, path, body);
    const out = (await res.json()) as T & { error?: { message: string } };
    if (!res.ok) throw new Error(`${res.status} ${out.error?.message}`);
    return out;
  }
  /** Creates an account with a new passkey; returns the passkey and the sign-in answer. */
  async signup(s: Secrets): Promise<{ passkey: SoftPasskey; signedIn: SignedIn }> {
    const opts = await this.json<{ challengeId: string; options: never }>('POST', '/signup/options', {});
    const { passkey, response } = softAuthenticator(this.origin).create(opts.options);
    const signedIn = await this.json<SignedIn>('POST', '/signup/verify', {
      challengeId: opts.challengeId,
      response,
      recoveryAuth: await recoveryAuth(s.r),
      recoveryWrapped: await wrapForRecovery(s),
    });
    this.adopt(signedIn);
    return { passkey, signedIn };
  }
  /** Signs in with a passkey (any device holding it). */
  async signin(passkey: SoftPasskey): Promise<SignedIn> {
    const opts = await this.json<{ challengeId: string; options: { challenge: string } }>(
      'POST',
      '/signin/options',
      {},
    );
    const response = softAuthenticator(this.origin).get(passkey, opts.options, this.rpId);
    const signedIn = await this.json<SignedIn>('POST', '/signin/verify', { challengeId: opts.challengeId, response });
    this.adopt(signedIn);
    return signedIn;
  }
  /** Signs in with the recovery key alone. */
  async recover(r: Uint8Array): Promise<SignedIn> {
    const signedIn = await this.json<SignedIn>('POST', '/recovery/signin', { recoveryAuth: await recoveryAuth(r) });
    this.adopt(signedIn);
    return signedIn;
  }
  adopt(s: SignedIn): void {
    this.token = s.session.token;
    this.accountId = s.accountId;
  }
  push(items: SyncItem[], drop?: string[]): Promise<PushResult> {
    return this.json<PushResult>('POST', '/push', drop ? { items, drop } : { items });
  }
  /** Pulls every page after the cursor; returns the new items. */
  async pullAll(limit = 5000): Promise<StoredItem[]> {
    const out: StoredItem[] = [];
    for (;;) {
      const r = await this.json<PullResult>('GET', `/pull?after=${this.cursor}&limit=${limit}`);
      out.push(...r.items);
      this.cursor = r.cursor;
      if (!r.more) return out;
    }
  }
}

/** `n` plaintext events of one learner, with recognisable card ids, question ids, answers and times. */
export function plainEvents(n: number, tag: string, start = Date.UTC(2026, 0, 1)): PlainEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${tag}-ev-${i}`,
    cardId: `card-${tag}-occupancy-${i % 37}`,
    questionId: `q-${tag}-warp-stall-${i}`,
    answer: `answer-${tag}-${i}-bank-conflict`,
    at: new Date(start + i * 61_000).toISOString(),
  }));
}

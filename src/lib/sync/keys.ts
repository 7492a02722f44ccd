/**
 * The keys of sync, derived exactly as src/protocol/sync.ts says (HKDF-SHA-256 with an empty salt and the infos
 * of `SYNC_INFO`; wrapping is AES-GCM-256 of the 32-byte account key under a derived key, 12-byte random IV).
 * Pure WebCrypto (`globalThis.crypto.subtle`): runs in the browser and in Node.
 *
 * The account key K is only ever held raw while signing up or in (to wrap or unwrap it); what the device keeps
 * are two non-extractable CryptoKeys made from it (`AccountKeys`): one that encrypts items (AES-GCM) and one
 * that names them (HMAC-SHA-256 under HKDF(K, "saturate/item-id")).
 */
import { SYNC_INFO, type WrappedKey } from '../../protocol/sync.ts';
import { fromB64u, randomBytes, toB64u, utf8 } from './bytes.ts';

const subtle = () => globalThis.crypto.subtle;
export const ACCOUNT_KEY_BYTES = 32;

/** The device's working keys for an account: non-extractable, storable in IndexedDB as they are. */
export interface AccountKeys {
  /** AES-GCM-256 under the account key: encrypts and decrypts items. */
  enc: CryptoKey;
  /** HMAC-SHA-256 under HKDF(K, "saturate/item-id"): item ids and record keys. */
  id: CryptoKey;
}

/** A wrapped key that does not open under this secret (a wrong recovery key, another passkey). */
export class WrongKeyError extends Error {
  constructor(message = 'That key does not open this account: it belongs to another account, or it has a typo.') {
    super(message);
    this.name = 'WrongKeyError';
  }
}

/** 32 random bytes: a new account key or recovery key. */
export const newSecret = (): Uint8Array<ArrayBuffer> => randomBytes(ACCOUNT_KEY_BYTES);

/** HKDF-SHA-256(secret, salt = empty, info) → 32 bytes. */
export async function hkdf(secret: Uint8Array<ArrayBuffer>, info: string): Promise<Uint8Array<ArrayBuffer>> {
  const base = await subtle().importKey('raw', secret, 'HKDF', false, ['deriveBits']);
  const bits = await subtle().deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8(info) },
    base,
    256,
  );
  return new Uint8Array(bits);
}

/** The PRF salt the browser evaluates: SHA-256("saturate/prf-v1"). */
export async function prfSalt(): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await subtle().digest('SHA-256', utf8(SYNC_INFO.prfSaltInput)));
}

/** `recoveryAuth` for the server: base64url of HKDF(R, "saturate/recovery-auth"). */
export async function recoveryAuth(recoveryKey: Uint8Array<ArrayBuffer>): Promise<string> {
  return toB64u(await hkdf(recoveryKey, SYNC_INFO.recoveryAuth));
}

async function wrappingKey(secret: Uint8Array<ArrayBuffer>, info: string): Promise<CryptoKey> {
  const raw = await hkdf(secret, info);
  return subtle().importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/** Wraps the raw account key under HKDF(secret, info): the recovery key's or a passkey PRF output's. */
export async function wrapAccountKey(
  accountKey: Uint8Array<ArrayBuffer>,
  secret: Uint8Array<ArrayBuffer>,
  info: typeof SYNC_INFO.recoveryWrap | typeof SYNC_INFO.prfWrap,
): Promise<WrappedKey> {
  const iv = randomBytes(12);
  const data = await subtle().encrypt({ name: 'AES-GCM', iv }, await wrappingKey(secret, info), accountKey);
  return { iv: toB64u(iv), data: toB64u(new Uint8Array(data)) };
}

/** Unwraps the raw account key; throws `WrongKeyError` when the secret is not the one it was wrapped with. */
export async function unwrapAccountKey(
  wrapped: WrappedKey,
  secret: Uint8Array<ArrayBuffer>,
  info: typeof SYNC_INFO.recoveryWrap | typeof SYNC_INFO.prfWrap,
): Promise<Uint8Array<ArrayBuffer>> {
  let raw: ArrayBuffer;
  try {
    raw = await subtle().decrypt(
      { name: 'AES-GCM', iv: fromB64u(wrapped.iv) },
      await wrappingKey(secret, info),
      fromB64u(wrapped.data),
    );
  } catch {
    throw new WrongKeyError();
  }
  if (raw.byteLength !== ACCOUNT_KEY_BYTES) throw new WrongKeyError('The stored account key is damaged.');
  return new Uint8Array(raw);
}

/** The device's working keys from the raw account key (both non-extractable). */
export async function accountKeys(accountKey: Uint8Array<ArrayBuffer>): Promise<AccountKeys> {
  const enc = await subtle().importKey('raw', accountKey, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const idRaw = await hkdf(accountKey, SYNC_INFO.itemId);
  const id = await subtle().importKey('raw', idRaw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return { enc, id };
}

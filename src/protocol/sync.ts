/**
 * The wire format between the site and the sync server (`server/sync/`): JSON over HTTPS, shared by both.
 *
 * What the server can and cannot see. It stores opaque items: AES-GCM ciphertext under an account key that
 * only the learner's devices hold, an id that is an HMAC of the plaintext id (never a card id, question id or
 * answer time), a kind, and for a record its HMAC'd key. It sees when an item was pushed, its size, how many
 * devices hold a session, and the public keys of the account's passkeys. It never sees the account key, the
 * recovery key, or anything the learner did.
 *
 * Keys (all derived in the browser with WebCrypto; `src/lib/sync/`):
 * - account key K: 32 random bytes (AES-GCM-256). Items are encrypted under it, 12-byte random IVs.
 * - recovery key R: 32 random bytes, shown once (text and QR). HKDF-SHA-256(R, info "saturate/recovery-auth")
 *   is the `recoveryAuth` secret the server checks (it stores only its SHA-256); HKDF(R, "saturate/recovery-wrap")
 *   wraps K (`WrappedKey`), stored on the server.
 * - passkey PRF: where the authenticator supports the PRF extension, eval(first = SHA-256("saturate/prf-v1"))
 *   gives 32 bytes; HKDF(that, "saturate/prf-wrap") wraps K, stored per credential id. A new device that signs
 *   in with a synced passkey unwraps K from it; elsewhere the learner types or scans R once.
 * - item ids: HMAC-SHA-256(HKDF(K, "saturate/item-id"), plaintext id), first 16 bytes, base64url.
 *
 * Sessions are bearer tokens kept on the device (IndexedDB), not cookies: the site and the sync server may be on
 * different sites, and Safari (and Chrome's third-party cookie rules) would not send a cross-site cookie with
 * `fetch`. The server stores only each token's SHA-256.
 *
 * Routes (all under `/v1`, JSON bodies, `Authorization: Bearer <token>` where marked 🔒):
 * - `POST /signup/options` → `ChallengeOptions` (WebAuthn creation options; discoverable credential, PRF asked)
 * - `POST /signup/verify` `SignupVerify` → `SignedIn`
 * - `POST /signin/options` → `ChallengeOptions` (request options, no allowCredentials: any passkey of this RP)
 * - `POST /signin/verify` `SigninVerify` → `SignedIn`
 * - `POST /recovery/signin` `RecoverySignin` → `SignedIn`
 * - 🔒 `PUT /keys/prf` `PrfKeyPut` → `{ ok: true }` (after a PRF evaluation on a new device or the first one)
 * - 🔒 `POST /push` `PushRequest` → `PushResult`
 * - 🔒 `GET /pull?after=<cursor>&limit=<n ≤ 5000>` → `PullResult`
 * - 🔒 `GET /status` → `SyncStatus`
 * - 🔒 `POST /signout` → `{ ok: true }` (this session only)
 * - 🔒 `DELETE /account` → `{ ok: true }` (everything of the account, every session)
 * Errors: an HTTP status and `SyncError`. 400 bad input, 401 no or bad session, 403 origin not allowed,
 * 404 unknown route, 409 challenge used or expired, 413 too large or over quota, 429 rate limited (Retry-After).
 */
import { z } from 'zod';

/** base64url without padding. */
export const B64U = z.string().regex(/^[A-Za-z0-9_-]*$/, 'base64url without padding');

/** A key wrapped with AES-GCM under a key derived from the recovery key or a passkey's PRF output. */
export const WrappedKeySchema = z.strictObject({
  iv: B64U.length(16), // 12 bytes
  data: B64U.max(128), // 32-byte key + 16-byte tag
});
export type WrappedKey = z.output<typeof WrappedKeySchema>;

/** An opaque item as stored and sent. `event`: an event of the append-only log (merged by union of id).
 * `record`: one version of a last-writer-wins record (a quiz in progress, the daily rhythm); `key` is the
 * HMAC of its plaintext key, the winner is decided by the hybrid logical clock inside the ciphertext. */
export const SyncItemSchema = z.strictObject({
  id: B64U.min(16).max(43),
  kind: z.enum(['event', 'record']),
  key: B64U.min(16).max(43).optional(),
  iv: B64U.length(16),
  data: B64U.min(1).max(87_382), // 64 KiB of ciphertext
});
export type SyncItem = z.output<typeof SyncItemSchema>;

/** An item as the server returns it, with its place in the account's order. */
export const StoredItemSchema = SyncItemSchema.extend({ seq: z.number().int().positive() });
export type StoredItem = z.output<typeof StoredItemSchema>;

export const PushRequestSchema = z.strictObject({
  items: z.array(SyncItemSchema).max(5000),
  /** Ids of items to remove, in the push's transaction, before its items are stored (freed bytes count against the
   * quota first): record versions the client has seen beaten by a newer version of the same key, and small event
   * items (src/lib/sync/compact.ts). A client drops event items only in the push that stores their events again,
   * packed: the request's items hold every event of each event item it drops, so no event is ever lost. An unknown
   * id is ignored (dropping is idempotent: two devices compacting the same items at once lose nothing). */
  drop: z.array(B64U.min(16).max(43)).max(5000).optional(),
});
export type PushRequest = z.output<typeof PushRequestSchema>;

export const PushResultSchema = z.strictObject({
  /** Items stored now; an id already stored is not stored again (`duplicates`). */
  accepted: z.number().int().nonnegative(),
  duplicates: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  usedBytes: z.number().int().nonnegative(),
  quotaBytes: z.number().int().positive(),
});
export type PushResult = z.output<typeof PushResultSchema>;

export const PullResultSchema = z.strictObject({
  items: z.array(StoredItemSchema),
  /** Pass as `after` next time; opaque. */
  cursor: z.string().max(32),
  /** More items wait after this page. */
  more: z.boolean(),
});
export type PullResult = z.output<typeof PullResultSchema>;

export const ChallengeOptionsSchema = z.strictObject({
  challengeId: B64U.min(16).max(64),
  /** PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON (@simplewebauthn). */
  options: z.record(z.string(), z.unknown()),
  /** base64url of SHA-256("saturate/prf-v1"): the PRF salt the browser evaluates. */
  prfSalt: B64U,
});
export type ChallengeOptions = z.output<typeof ChallengeOptionsSchema>;

export const SignupVerifySchema = z.strictObject({
  challengeId: B64U.min(16).max(64),
  /** RegistrationResponseJSON. */
  response: z.record(z.string(), z.unknown()),
  /** base64url of HKDF(R, "saturate/recovery-auth"), 32 bytes; the server keeps its SHA-256. */
  recoveryAuth: B64U.length(43),
  recoveryWrapped: WrappedKeySchema,
});
export type SignupVerify = z.output<typeof SignupVerifySchema>;

export const SigninVerifySchema = z.strictObject({
  challengeId: B64U.min(16).max(64),
  /** AuthenticationResponseJSON. */
  response: z.record(z.string(), z.unknown()),
});
export type SigninVerify = z.output<typeof SigninVerifySchema>;

export const RecoverySigninSchema = z.strictObject({ recoveryAuth: B64U.length(43) });
export type RecoverySignin = z.output<typeof RecoverySigninSchema>;

export const PrfKeyPutSchema = z.strictObject({ credentialId: B64U.min(16).max(1366), wrapped: WrappedKeySchema });
export type PrfKeyPut = z.output<typeof PrfKeyPutSchema>;

export const SignedInSchema = z.strictObject({
  accountId: B64U.min(16).max(43),
  session: z.strictObject({ token: B64U.min(32).max(86), expiresAt: z.number().int() }),
  /** The wrapped account key: by the recovery key always, by a passkey's PRF where one was stored. */
  keys: z.strictObject({ recovery: WrappedKeySchema, prf: z.record(z.string(), WrappedKeySchema) }),
  /** The credential used to sign in (absent for the recovery key). */
  credentialId: z.string().optional(),
});
export type SignedIn = z.output<typeof SignedInSchema>;

export const SyncStatusSchema = z.strictObject({
  accountId: z.string(),
  /** Sessions not signed out and not expired: "3 devices". */
  devices: z.number().int().nonnegative(),
  items: z.number().int().nonnegative(),
  usedBytes: z.number().int().nonnegative(),
  quotaBytes: z.number().int().positive(),
  /** Unix ms of the newest push, or null. */
  lastPushAt: z.number().int().nullable(),
});
export type SyncStatus = z.output<typeof SyncStatusSchema>;

export const SyncErrorSchema = z.strictObject({
  error: z.strictObject({ code: z.string(), message: z.string() }),
});
export type SyncError = z.output<typeof SyncErrorSchema>;

/** The PRF salt's input and HKDF infos: one spelling for the site and the tests. */
export const SYNC_INFO = {
  prfSaltInput: 'saturate/prf-v1',
  recoveryAuth: 'saturate/recovery-auth',
  recoveryWrap: 'saturate/recovery-wrap',
  prfWrap: 'saturate/prf-wrap',
  itemId: 'saturate/item-id',
} as const;

/**
 * The sync server's storage: one small interface (`SyncStore`), two implementations — SQLite in one file
 * (`sqlite.ts`, the default) and PostgreSQL (`postgres.ts`, for several server processes on one database).
 *
 * Tables (both databases): `accounts` (id, recovery hash, recovery-wrapped key, next_seq, used_bytes),
 * `credentials` (passkey public keys), `prf_keys` (the account key wrapped per credential), `challenges`
 * (single use, with expiry), `sessions` (SHA-256 of bearer tokens, with expiry) and `items` (opaque ciphertext,
 * primary key (account, id), ordered by a per-account `seq`).
 *
 * Sequence numbers: a push locks its account's row first (SQLite: one writer at a time; PostgreSQL:
 * `SELECT … FOR UPDATE`), so pushes to one account commit one after another and take seqs in commit order.
 * A pull (`seq > after`) therefore never skips an item that commits later with a lower seq.
 */
import type { StoredItem, SyncItem, WrappedKey } from '../../src/protocol/sync.ts';

/** What a challenge was issued for. */
export type ChallengePurpose = 'signup' | 'signin';

/** A WebAuthn challenge waiting for its answer. */
export interface ChallengeRow {
  id: string;
  challenge: string;
  purpose: ChallengePurpose;
  /** For sign-up: the new account's id (the passkey's user handle). */
  accountId: string | null;
  /** Unix ms. */
  expiresAt: number;
}

/** A passkey as stored: what @simplewebauthn/server needs to verify a sign-in. */
export interface CredentialRow {
  id: string;
  accountId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
}

/** A new account with its first passkey. */
export interface NewAccount {
  id: string;
  /** SHA-256 of the recoveryAuth secret, base64url. */
  recoveryHash: string;
  recoveryWrapped: WrappedKey;
  credential: Omit<CredentialRow, 'accountId'>;
  quotaBytes: number;
  now: number;
}

/** An account's wrapped account keys. */
export interface AccountKeys {
  recovery: WrappedKey;
  prf: Record<string, WrappedKey>;
}

/** What a push did. */
export interface PushOutcome {
  accepted: number;
  duplicates: number;
  dropped: number;
  usedBytes: number;
  quotaBytes: number;
}

/** Thrown by `push` when the items would pass the account's quota; nothing of that push is stored. */
export class QuotaError extends Error {
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly pushBytes: number;
  constructor(usedBytes: number, pushBytes: number, quotaBytes: number) {
    super(
      `This push of ${pushBytes} bytes would pass the account's quota: it holds ${usedBytes} of ${quotaBytes} bytes. Nothing of this push was stored; drop old record versions or ask the server's operator for a larger --quota-bytes.`,
    );
    this.name = 'QuotaError';
    this.usedBytes = usedBytes;
    this.quotaBytes = quotaBytes;
    this.pushBytes = pushBytes;
  }
}

/** Account status for `GET /v1/status`. */
export interface StatusRow {
  devices: number;
  items: number;
  usedBytes: number;
  quotaBytes: number;
  lastPushAt: number | null;
}

/** The storage every route goes through. All methods are atomic. */
export interface SyncStore {
  readonly kind: 'sqlite' | 'postgres';
  putChallenge(row: ChallengeRow): Promise<void>;
  /** Removes and returns the challenge (single use); null when unknown or already taken. */
  takeChallenge(id: string): Promise<ChallengeRow | null>;
  createAccount(account: NewAccount): Promise<void>;
  findCredential(id: string): Promise<CredentialRow | null>;
  updateCounter(id: string, counter: number): Promise<void>;
  /** The account whose recovery hash is `hash`, or null. */
  findRecovery(hash: string): Promise<{ accountId: string; recoveryHash: string } | null>;
  keys(accountId: string): Promise<AccountKeys>;
  /** Stores the key wrapped by `credentialId`'s PRF; false when that credential is not the account's. */
  putPrfKey(accountId: string, credentialId: string, wrapped: WrappedKey): Promise<boolean>;
  createSession(tokenHash: string, accountId: string, now: number, expiresAt: number): Promise<void>;
  /** The account of a live session, or null (unknown or expired). */
  findSession(tokenHash: string, now: number): Promise<string | null>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Drops the items named in `drop` (record versions and compacted event items, src/protocol/sync.ts), then stores
   * new items (a known id is a duplicate), in one transaction; throws QuotaError (and does neither). */
  push(accountId: string, items: readonly SyncItem[], drop: readonly string[], now: number): Promise<PushOutcome>;
  /** Items with seq > after, oldest first, at most `limit`; `more` when others follow. */
  pull(accountId: string, after: number, limit: number): Promise<{ items: StoredItem[]; more: boolean; last: number }>;
  status(accountId: string, now: number): Promise<StatusRow>;
  /** Removes the account and everything of it, in every table. */
  deleteAccount(accountId: string): Promise<void>;
  /** Removes expired challenges and sessions. */
  sweep(now: number): Promise<void>;
  close(): Promise<void>;
}

/** Bytes an item counts against the quota: its stored text. */
export function itemBytes(item: SyncItem): number {
  return item.id.length + item.iv.length + item.data.length + (item.key?.length ?? 0);
}

/** The items of a push that are new: the first of each id, in order. */
export function uniqueById(items: readonly SyncItem[]): SyncItem[] {
  const byId = new Map<string, SyncItem>();
  for (const i of items) if (!byId.has(i.id)) byId.set(i.id, i);
  return [...byId.values()];
}

/** Table definitions shared by both databases (types that both SQLite and PostgreSQL accept). */
export const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, recovery_hash TEXT NOT NULL UNIQUE,
     recovery_wrapped TEXT NOT NULL, next_seq BIGINT NOT NULL DEFAULT 1, used_bytes BIGINT NOT NULL DEFAULT 0,
     quota_bytes BIGINT NOT NULL, created_at BIGINT NOT NULL, last_push_at BIGINT)`,
  `CREATE TABLE IF NOT EXISTS credentials (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     public_key TEXT NOT NULL, counter BIGINT NOT NULL, transports TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS credentials_account ON credentials(account_id)`,
  `CREATE TABLE IF NOT EXISTS prf_keys (account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     credential_id TEXT NOT NULL, wrapped TEXT NOT NULL, PRIMARY KEY (account_id, credential_id))`,
  `CREATE TABLE IF NOT EXISTS challenges (id TEXT PRIMARY KEY, challenge TEXT NOT NULL, purpose TEXT NOT NULL,
     account_id TEXT, expires_at BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS sessions_account ON sessions(account_id)`,
  `CREATE TABLE IF NOT EXISTS items (account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, id TEXT NOT NULL,
     seq BIGINT NOT NULL, kind TEXT NOT NULL, key TEXT, iv TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (account_id, id))`,
  `CREATE UNIQUE INDEX IF NOT EXISTS items_seq ON items(account_id, seq)`,
] as const;

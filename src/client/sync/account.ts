/**
 * Creating an account, signing in and out, and deleting the account (src/protocol/sync.ts's routes), with passkeys
 * through @simplewebauthn/browser and keys from src/lib/sync/keys.ts.
 *
 * - Create: a passkey (PRF asked), a new account key K and recovery key R; R wraps K on the server, and where the
 *   passkey gives a PRF output, so does it. Returns R's text to show once.
 * - Passkey sign-in: the PRF output unwraps K where the server holds a wrapping for this passkey. Without one (no PRF
 *   here, or a passkey that never stored one), the learner gives R once (`NeedsRecoveryKey`); with PRF, K is then
 *   wrapped for this passkey too, so the next device that has it needs nothing typed.
 * - Recovery sign-in: R alone.
 * The PRF output never leaves the device: it is taken out of the response before it is sent.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { SYNC_INFO, type SignedIn } from '../../protocol/sync.ts';
import { syncApi, type SyncApi } from './api.ts';
import {
  accountKeys,
  newSecret,
  prfSalt,
  recoveryAuth,
  unwrapAccountKey,
  wrapAccountKey,
} from '../../lib/sync/keys.ts';
import { formatRecoveryKey, parseRecoveryKey } from '../../lib/sync/recovery-key.ts';
import { fromB64u, randomBytes, toB64u } from '../../lib/sync/bytes.ts';
import { freshSyncLocal } from '../../lib/sync/state.ts';
import { clearSync, readSyncSession, saveSignIn } from '../../store/sync-state.ts';
import { newNode } from './session.ts';

/** A passkey sign-in that needs the recovery key once on this device; call `finish(text)` with it. */
export class NeedsRecoveryKey extends Error {
  readonly finish: (recoveryKeyText: string) => Promise<void>;
  constructor(finish: (text: string) => Promise<void>, prf: boolean) {
    super(
      prf
        ? 'Signed in. This passkey has not unlocked your synced progress on a device before: enter your recovery key once.'
        : 'Signed in. This device or passkey cannot unlock your synced progress by itself: enter your recovery key once.',
    );
    this.name = 'NeedsRecoveryKey';
    this.finish = finish;
  }
}

type Json = Record<string, unknown>;
type PrfResults = { enabled?: boolean; results?: { first?: BufferSource } };

/** The PRF output of a WebAuthn response, and the response without it (what the server gets). */
function takePrf<R extends { clientExtensionResults: unknown }>(
  response: R,
): { prf: Uint8Array<ArrayBuffer> | null; enabled: boolean; clean: R } {
  const ext = { ...(response.clientExtensionResults as Json) };
  const prf = ext['prf'] as PrfResults | undefined;
  delete ext['prf'];
  const first = prf?.results?.first;
  const bytes = first
    ? new Uint8Array(first instanceof ArrayBuffer ? first : (first as ArrayBufferView).buffer.slice(0))
    : null;
  return {
    prf: bytes && bytes.length >= 32 ? (bytes.slice(0, 32) as Uint8Array<ArrayBuffer>) : null,
    enabled: Boolean(prf?.enabled || bytes),
    clean: {
      ...response,
      clientExtensionResults: prf?.enabled !== undefined ? { ...ext, prf: { enabled: prf.enabled } } : ext,
    },
  };
}

const withPrf = (options: Json, salt: Uint8Array<ArrayBuffer>): Json => ({
  ...options,
  extensions: { ...(options['extensions'] as Json | undefined), prf: { eval: { first: salt } } },
});

async function keep(serverUrl: string, signedIn: SignedIn, rawKey: Uint8Array<ArrayBuffer>): Promise<void> {
  const before = await readSyncSession();
  const sameAccount = before?.accountId === signedIn.accountId && before.serverUrl === serverUrl;
  await saveSignIn({
    session: {
      serverUrl,
      accountId: signedIn.accountId,
      token: signedIn.session.token,
      expiresAt: signedIn.session.expiresAt,
      ...(signedIn.credentialId ? { credentialId: signedIn.credentialId } : {}),
    },
    keys: await accountKeys(rawKey),
    // Another account (or none before): sync starts from the beginning and sends all of this device's history.
    local: sameAccount ? null : freshSyncLocal(newNode()),
  });
}

/** Creates an account with a new passkey. Returns the recovery key's text, to show once. */
export async function createAccount(
  serverUrl: string,
  api: SyncApi = syncApi(serverUrl),
): Promise<{ recoveryKey: string; prf: boolean }> {
  const { challengeId, options, prfSalt: salt } = await api.signupOptions();
  const response = await startRegistration({ optionsJSON: withPrf(options, fromB64u(salt)) as never });
  let { prf, enabled, clean } = takePrf(response);
  const k = newSecret();
  const r = newSecret();
  const signedIn = await api.signupVerify({
    challengeId,
    response: clean as unknown as Json,
    recoveryAuth: await recoveryAuth(r),
    recoveryWrapped: await wrapAccountKey(k, r, SYNC_INFO.recoveryWrap),
  });
  const authed = syncApi(serverUrl, signedIn.session.token);
  // Chromium gives PRF results at creation only for some authenticators: otherwise ask the new passkey once,
  // locally (the PRF output does not depend on the challenge, so nothing goes to the server).
  if (!prf && enabled)
    prf = await localPrf(response.id, (options['rp'] as Json | undefined)?.['id'] as string | undefined);
  if (prf)
    await authed.putPrfKey({ credentialId: response.id, wrapped: await wrapAccountKey(k, prf, SYNC_INFO.prfWrap) });
  await keep(serverUrl, { ...signedIn, credentialId: signedIn.credentialId ?? response.id }, k);
  return { recoveryKey: formatRecoveryKey(r), prf: Boolean(prf) };
}

async function localPrf(credentialId: string, rpId: string | undefined): Promise<Uint8Array<ArrayBuffer> | null> {
  try {
    const res = await startAuthentication({
      optionsJSON: withPrf(
        {
          challenge: toB64u(randomBytes(32)),
          allowCredentials: [{ id: credentialId, type: 'public-key' }],
          userVerification: 'preferred',
          ...(rpId ? { rpId } : {}),
        },
        await prfSalt(),
      ) as never,
    });
    return takePrf(res).prf;
  } catch {
    return null; // the recovery key still opens the account
  }
}

/** Signs in with a passkey. Throws `NeedsRecoveryKey` when this device must be given the recovery key once. */
export async function signInWithPasskey(serverUrl: string, api: SyncApi = syncApi(serverUrl)): Promise<void> {
  const { challengeId, options, prfSalt: salt } = await api.signinOptions();
  const response = await startAuthentication({ optionsJSON: withPrf(options, fromB64u(salt)) as never });
  const { prf, clean } = takePrf(response);
  const signedIn = await api.signinVerify({ challengeId, response: clean as unknown as Json });
  const credentialId = signedIn.credentialId ?? response.id;
  const wrapped = signedIn.keys.prf[credentialId];
  if (prf && wrapped) return keep(serverUrl, signedIn, await unwrapAccountKey(wrapped, prf, SYNC_INFO.prfWrap));
  throw new NeedsRecoveryKey(async (text) => {
    const r = parseRecoveryKey(text);
    const k = await unwrapAccountKey(signedIn.keys.recovery, r, SYNC_INFO.recoveryWrap);
    if (prf)
      await syncApi(serverUrl, signedIn.session.token).putPrfKey({
        credentialId,
        wrapped: await wrapAccountKey(k, prf, SYNC_INFO.prfWrap),
      });
    await keep(serverUrl, { ...signedIn, credentialId }, k);
  }, Boolean(prf));
}

/** Signs in with the recovery key alone. Throws `RecoveryKeyError` on a typo, `SyncApiError` when the server says no. */
export async function signInWithRecoveryKey(
  serverUrl: string,
  text: string,
  api: SyncApi = syncApi(serverUrl),
): Promise<void> {
  const r = parseRecoveryKey(text);
  const signedIn = await api.recoverySignin({ recoveryAuth: await recoveryAuth(r) });
  await keep(serverUrl, signedIn, await unwrapAccountKey(signedIn.keys.recovery, r, SYNC_INFO.recoveryWrap));
}

/** Signs this device out (the server forgets this session); progress on the device stays. */
export async function signOut(): Promise<void> {
  const s = await readSyncSession();
  if (s)
    await syncApi(s.serverUrl, s.token)
      .signout()
      .catch(() => undefined); // signed out here even offline
  await clearSync();
}

/** Deletes the account and everything of it on the server, then signs out here. Progress on the device stays. */
export async function deleteAccount(): Promise<void> {
  const s = await readSyncSession();
  if (!s) return;
  await syncApi(s.serverUrl, s.token).deleteAccount();
  await clearSync();
}

/**
 * Passkeys for the sync server, on @simplewebauthn/server: creation and request options, and the checks of
 * what the browser answers (signature, challenge, origin against `--allow-origin`, RP ID against `--rp-id`).
 * Challenges live in the store, expire after CHALLENGE_TTL_MS and are taken (deleted) before checking, so an
 * answer is accepted once at most.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { SYNC_INFO } from '../../src/protocol/sync.ts';
import type { ChallengeRow, CredentialRow } from './store.ts';

/** How long a challenge may wait for its answer. */
export const CHALLENGE_TTL_MS = 2 * 60_000;

/** base64url of SHA-256("saturate/prf-v1"): the PRF salt every device evaluates. */
export const PRF_SALT = createHash('sha256').update(SYNC_INFO.prfSaltInput).digest('base64url');

/** ES256, EdDSA, RS256: what platform authenticators and security keys make. */
const ALGORITHMS = [-7, -8, -257];

/** Where passkeys are checked: the RP ID and the origins allowed to use them. */
export interface RelyingParty {
  rpId: string;
  origins: readonly string[];
}

/** A random base64url id of `bytes` bytes. */
export const randomId = (bytes = 16): string => randomBytes(bytes).toString('base64url');

/**
 * Creation options for a new account: a discoverable credential (so sign-in needs no user name), user
 * verification preferred, PRF asked for. The user handle is the new account's id.
 */
export async function signupOptions(rp: RelyingParty, now: number) {
  const accountId = randomId(16);
  const options = await generateRegistrationOptions({
    rpName: 'Saturate',
    rpID: rp.rpId,
    userName: 'Saturate learner',
    userDisplayName: 'Saturate learner',
    userID: Buffer.from(accountId, 'base64url'),
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    extensions: { prf: {} },
    supportedAlgorithmIDs: ALGORITHMS,
    timeout: CHALLENGE_TTL_MS,
  });
  const row: ChallengeRow = {
    id: randomId(18),
    challenge: options.challenge,
    purpose: 'signup',
    accountId,
    expiresAt: now + CHALLENGE_TTL_MS,
  };
  return { row, options };
}

/** Request options for sign-in: no allowCredentials (any passkey of this RP); the browser adds the PRF eval. */
export async function signinOptions(rp: RelyingParty, now: number) {
  const options = await generateAuthenticationOptions({
    rpID: rp.rpId,
    userVerification: 'preferred',
    timeout: CHALLENGE_TTL_MS,
  });
  const row: ChallengeRow = {
    id: randomId(18),
    challenge: options.challenge,
    purpose: 'signin',
    accountId: null,
    expiresAt: now + CHALLENGE_TTL_MS,
  };
  return { row, options };
}

/** A check that failed, with a message for the learner. */
export class PasskeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasskeyError';
  }
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Checks a registration answer; returns the credential to store. */
export async function checkSignup(
  rp: RelyingParty,
  challenge: ChallengeRow,
  response: unknown,
): Promise<Omit<CredentialRow, 'accountId'>> {
  let result;
  try {
    result = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge.challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rpId,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (e) {
    throw new PasskeyError(`The passkey could not be checked: ${why(e)}`);
  }
  if (!result.verified) throw new PasskeyError('The passkey could not be checked.');
  const c = result.registrationInfo.credential;
  return {
    id: c.id,
    publicKey: Buffer.from(c.publicKey).toString('base64url'),
    counter: c.counter,
    transports: c.transports ?? [],
  };
}

/** Checks a sign-in answer against its stored credential; returns the new signature counter. */
export async function checkSignin(
  rp: RelyingParty,
  challenge: ChallengeRow,
  credential: CredentialRow,
  response: unknown,
): Promise<number> {
  const r = response as AuthenticationResponseJSON;
  if (r.response?.userHandle !== undefined && r.response.userHandle !== credential.accountId)
    throw new PasskeyError('This passkey belongs to another account than it claims.');
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response: r,
      expectedChallenge: challenge.challenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rpId,
      requireUserVerification: false,
      credential: {
        id: credential.id,
        publicKey: Buffer.from(credential.publicKey, 'base64url'),
        counter: credential.counter,
        transports: credential.transports,
      },
    });
  } catch (e) {
    throw new PasskeyError(`The passkey could not be checked: ${why(e)}`);
  }
  if (!result.verified) throw new PasskeyError('The passkey could not be checked.');
  return result.authenticationInfo.newCounter;
}

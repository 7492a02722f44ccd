/**
 * A platform authenticator for a Chromium page through CDP's WebAuthn domain: a passkey store with user
 * verification and the PRF extension, as a phone's or laptop's built-in one (iCloud Keychain, Google Password
 * Manager). Used by the sync tests in Chromium (test/e2e/sync.spec.ts) and the WebKit one's Chromium side.
 */
import type { CDPSession } from '@playwright/test';

/** Adds the authenticator to the page behind `cdp`; returns its id (to copy credentials to another device). */
export async function addPlatformAuthenticator(cdp: CDPSession): Promise<string> {
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      hasPrf: true,
      automaticPresenceSimulation: true,
    } as never,
  });
  return authenticatorId;
}

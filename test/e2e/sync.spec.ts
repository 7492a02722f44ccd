/**
 * Sign in and sync, as learners would, in Chromium with CDP virtual authenticators (passkeys with PRF) against the
 * real sync server (server/sync/, SQLite in a temp folder). The site is served at `localhost` (WebAuthn refuses IP
 * addresses as RP IDs); each device is its own browser context (its own IndexedDB and localStorage).
 *
 * A passkey copied with WebAuthn.getCredentials / addCredential carries its private key but not its PRF secret
 * (measured: the copy answers PRF with no result), so device B signs in with A's passkey and gives the recovery key
 * once; the PRF path (no key typed) is exercised by A signing out and back in with its own passkey.
 */
import { test, expect, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSite, type SiteServer } from './site-server.ts';
import { startSyncServer, type RunningSyncServer } from '../../server/sync/server.ts';
import { UNLIMITED } from '../../server/sync/limits.ts';
import { getBank, type BankQuestion } from './progress-helpers.ts';
import { answerQuickly } from './quiz-fast.ts';
import { shootBothSchemes } from './shoot.ts';
import { addPlatformAuthenticator } from './passkeys.ts';

test.describe.configure({ mode: 'serial' });

let site: SiteServer;
let sync: RunningSyncServer;
let data: string;
let origin: string;

test.beforeAll(async () => {
  site = await startSite();
  origin = site.url.replace('127.0.0.1', 'localhost');
  data = mkdtempSync(join(tmpdir(), 'sync-e2e-'));
  sync = await startSyncServer({
    port: 0,
    data,
    allowOrigin: origin,
    rpId: 'localhost',
    limits: UNLIMITED,
    log: () => {},
  });
});

test.afterAll(async () => {
  await sync?.stop();
  await site?.dispose();
  if (data) rmSync(data, { recursive: true, force: true });
});

interface Device {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string | null;
}

/** A phone-size device with its own storage and, unless `passkeys` is false, a platform authenticator with PRF. */
async function device(browser: Browser, passkeys = true): Promise<Device> {
  const context = await browser.newContext({
    baseURL: origin,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    serviceWorkers: 'block',
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  let authenticatorId: string | null = null;
  if (passkeys) authenticatorId = await addPlatformAuthenticator(cdp);
  return { context, page, cdp, authenticatorId };
}

/** Copies every passkey of `from` into `to`, the way a synced passkey arrives on another device. */
async function copyPasskeys(from: Device, to: Device): Promise<void> {
  const { credentials } = await from.cdp.send('WebAuthn.getCredentials', { authenticatorId: from.authenticatorId! });
  expect(credentials).toHaveLength(1);
  for (const credential of credentials)
    await to.cdp.send('WebAuthn.addCredential', { authenticatorId: to.authenticatorId!, credential });
}

const panelOf = (page: Page) => page.locator('[data-sync-panel]');
const statusOf = (page: Page) => panelOf(page).locator('[data-sync-status]');

async function openSync(page: Page) {
  await page.goto('/progress/');
  await expect(page.getByTestId('dashboard')).toBeVisible();
  const panel = panelOf(page);
  await panel.scrollIntoViewIfNeeded();
  return panel;
}

/** Syncs from /progress/ and waits until nothing is left to send. */
async function syncNow(page: Page) {
  const panel = await openSync(page);
  await panel.getByRole('button', { name: 'Sync now' }).click();
  await expect(statusOf(page)).toHaveText(/^Synced (just now|\d+ min ago) · \d+ devices?$/, { timeout: 60_000 });
}

/** Answers a 30-question practice quiz (or the first `n` of one) with the device offline, then goes online. */
async function answerOffline(d: Device, bank: BankQuestion[], seed: string, n = 30) {
  await d.page.goto(`/practice/random/?seed=${seed}`);
  const quiz = d.page.locator('section.quiz');
  await expect(quiz.locator('.prompt').first()).toBeVisible();
  // The learner's first touch, still online, loads the page's write path, and on a signed-in device with it the sync
  // triggers (src/client/progress-writer.ts); they sync once at start. (Offline, the service worker would serve these
  // chunks; this context blocks it, so the touch comes first.)
  const started = d.page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        addEventListener('saturate:sync-status', (e) => {
          if ((e as CustomEvent<{ state: string }>).detail.state === 'ok') resolve();
        }),
      ),
  );
  await d.page.dispatchEvent('main', 'pointerdown');
  await started;
  await d.context.setOffline(true);
  await answerQuickly(
    quiz,
    bank,
    Array.from({ length: n }, (_, i) => i % 4 !== 0),
  );
  expect(await d.page.evaluate(() => navigator.onLine)).toBe(false);
  // Back online, the page itself syncs (the `online` trigger of src/client/sync/auto.ts): no visit to /progress/.
  await d.page.evaluate((least) => {
    (window as unknown as { pushed: Promise<number> }).pushed = new Promise<number>((resolve) =>
      addEventListener('saturate:sync-status', (e) => {
        const d = (e as CustomEvent<{ state: string; report?: { pushed: number } }>).detail;
        if (d.state === 'ok' && d.report!.pushed >= least) resolve(d.report!.pushed);
      }),
    );
  }, n);
  await d.context.setOffline(false);
  const pushed = d.page.evaluate(() => (window as unknown as { pushed: Promise<number> }).pushed);
  expect(await pushed).toBeGreaterThanOrEqual(n);
}

/** What /progress/ shows that sync must carry: streak, totals, reviews due, practice history. */
async function progressFacts(page: Page) {
  await page.goto('/progress/');
  const dash = page.getByTestId('dashboard');
  await expect(dash).toBeVisible();
  return {
    streak: await page.getByTestId('streak-current').innerText(),
    answers: await page.getByTestId('total-answers').innerText(),
    due: await page.locator('[data-due-slot]').innerText(),
    history: await page.locator('[data-practice-history]').innerText(),
  };
}

test('passkey sign-up, offline answers, a second device, both offline, and a recovery-key device end equal', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const a = await device(browser);
  const bank = await getBank(a.page);

  // Device A: the panel before sign-in, then an account with a passkey; the recovery key is shown once.
  const panel = await openSync(a.page);
  await expect(statusOf(a.page)).toHaveText('');
  await panel.getByLabel('Sync server').fill(`http://localhost:${sync.port}`);
  await shootBothSchemes(a.page, 'sync-signin');
  await panel.getByRole('button', { name: 'Create an account' }).click();
  const keyText = panel.locator('[data-sync-key-text]');
  await expect(keyText).toHaveText(/^([0-9A-Z]{4} ){13}[0-9A-Z]{4}$/);
  await expect(panel.getByRole('heading', { name: 'Your recovery key' })).toBeFocused();
  await expect(panel.getByRole('img', { name: 'Recovery key as a QR code' })).toBeVisible();
  const recoveryKey = await keyText.innerText();
  await panel.locator('[data-sync-key]').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await shootBothSchemes(a.page, 'sync-recovery-key');
  await panel.getByRole('button', { name: 'I saved it' }).click();
  await expect(statusOf(a.page)).toHaveText(/^Synced just now · 1 device$/, { timeout: 60_000 });
  await expect(keyText).toHaveText('');

  // A answers 30 questions offline; back online, they sync.
  await answerOffline(a, bank, 'sync-a1');
  await syncNow(a.page);
  await shootBothSchemes(a.page, 'sync-status');
  const factsA = await progressFacts(a.page);
  expect(factsA.answers).toBe('30');

  // A signs out and back in with its passkey: the PRF output unwraps the account key, nothing to type.
  await openSync(a.page);
  await panelOf(a.page).getByRole('button', { name: 'Sign out' }).click();
  await expect(statusOf(a.page)).toHaveText('Signed out. Your progress stays on this device.');
  await panelOf(a.page).getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(panelOf(a.page).getByRole('button', { name: 'Sync now' })).toBeVisible({ timeout: 60_000 });
  await expect(panelOf(a.page).locator('[data-sync-recovery-form]')).toBeHidden();
  await expect(statusOf(a.page)).toHaveText(/^Synced just now · \d devices?$/, { timeout: 60_000 });

  // Device B receives A's passkey and signs in: the same streak, review queue and practice history.
  const b = await device(browser);
  await copyPasskeys(a, b);
  const panelB = await openSync(b.page);
  await panelB.getByLabel('Sync server').fill(`http://localhost:${sync.port}`);
  await panelB.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(panelB.getByLabel('Recovery key')).toBeFocused({ timeout: 60_000 });
  await panelB.getByLabel('Recovery key').fill(recoveryKey.toLowerCase().replaceAll(' ', '-'));
  await panelB.getByRole('button', { name: 'Sign in with this key' }).click();
  await expect(statusOf(b.page)).toHaveText(/^Synced just now · \d devices$/, { timeout: 60_000 });
  expect(await progressFacts(b.page)).toEqual(factsA);

  // Both answer offline, then both sync: the union, nothing lost, equal counts.
  await answerOffline(a, bank, 'sync-a2', 5);
  await answerOffline(b, bank, 'sync-b1', 7);
  await syncNow(a.page);
  await syncNow(b.page);
  await syncNow(a.page);
  const [endA, endB] = [await progressFacts(a.page), await progressFacts(b.page)];
  expect(endA.answers).toBe('42');
  expect(endB).toEqual(endA);

  // Device C: no passkey at all, the recovery key only.
  const c = await device(browser, false);
  const panelC = await openSync(c.page);
  await panelC.getByLabel('Sync server').fill(`http://localhost:${sync.port}`);
  await panelC.getByRole('button', { name: 'Use a recovery key' }).click();
  await panelC.getByLabel('Recovery key').fill(recoveryKey.replace(' ', ' #'));
  await panelC.getByRole('button', { name: 'Sign in with this key' }).click();
  await expect(panelC.locator('[data-sync-error]')).toHaveText(/has only digits and letters|typo|56 letters/);
  await panelC.getByLabel('Recovery key').fill(recoveryKey);
  await panelC.getByRole('button', { name: 'Sign in with this key' }).click();
  await expect(statusOf(c.page)).toHaveText(/^Synced just now · \d devices$/, { timeout: 60_000 });
  expect((await progressFacts(c.page)).answers).toBe('42');

  for (const d of [a, b, c]) await d.context.close();
});

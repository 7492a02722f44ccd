/**
 * Sign in and sync in Mobile Safari's engine (WebKitGTK): an account made in Chromium with a passkey (CDP virtual
 * authenticator), one answer given there and synced; WebKit signs in with the recovery key alone and shows that
 * answer. Run through `node test/webkit/run.ts`. WebKit needs no WebAuthn here: the recovery path uses none
 * (WebKitGTK's MiniBrowser under WebDriver offers no virtual authenticator). The account key is kept in WebKit's
 * IndexedDB as a non-extractable CryptoKey, and the answer arrives decrypted through the store's import path.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from '@playwright/test';
import { By } from 'selenium-webdriver';
import type { SiteServer } from '../e2e/site-server.ts';
import { CHROMIUM_ARGS, testChromiumPath } from '../e2e/browser.ts';
import { addPlatformAuthenticator } from '../e2e/passkeys.ts';
import { startSyncServer, type RunningSyncServer } from '../../server/sync/server.ts';
import { UNLIMITED } from '../../server/sync/limits.ts';
import { waitInPage, withSiteAndWebKit, type WebKitSession } from './webkit.ts';

let site: SiteServer;
let wk: WebKitSession;
let sync: RunningSyncServer;
let chrome: Browser;
let data: string;

/** Chromium: creates an account with a passkey, answers one question, syncs; returns the recovery key's text. */
async function chromiumAnswersOne(): Promise<{ recoveryKey: string; questionId: string }> {
  const origin = site.url.replace('127.0.0.1', 'localhost');
  const executablePath = testChromiumPath();
  chrome = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  const context = await chrome.newContext({ baseURL: origin, serviceWorkers: 'block' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await addPlatformAuthenticator(cdp);
  await page.goto('/progress/');
  const panel = page.locator('[data-sync-panel]');
  await panel.getByLabel('Sync server').fill(`http://127.0.0.1:${sync.port}`);
  await panel.getByRole('button', { name: 'Create an account' }).click();
  await panel.locator('[data-sync-key-text]').filter({ hasText: /\w{4}/ }).waitFor({ timeout: 60_000 });
  const recoveryKey = await panel.locator('[data-sync-key-text]').innerText();
  await panel.getByRole('button', { name: 'I saved it' }).click();
  await panel.getByText(/^Synced just now/).waitFor({ timeout: 60_000 });

  await page.goto('/practice/random/?seed=webkit-sync');
  const quiz = page.locator('section.quiz');
  await quiz.locator('.prompt').first().waitFor();
  const questionId = (await quiz.locator('.prompt').first().getAttribute('id'))!.replace(/^q-(.*)-prompt$/, '$1');
  await quiz.locator('[data-option]').first().click();
  await quiz.locator('.feedback h3').waitFor();
  await page.goto('/progress/');
  await panel.getByRole('button', { name: 'Sync now' }).click();
  await panel.getByText(/^Synced just now · 1 device$/).waitFor({ timeout: 60_000 });
  await context.close();
  return { recoveryKey, questionId };
}

describe(
  'WebKit (Safari engine): sign in with the recovery key and see progress made in Chromium',
  { timeout: 240_000 },
  () => {
    withSiteAndWebKit((s, w) => ([site, wk] = [s, w]));
    before(async () => {
      data = mkdtempSync(join(tmpdir(), 'sync-webkit-'));
      sync = await startSyncServer({
        port: 0,
        data,
        allowOrigin: [site.url.replace('127.0.0.1', 'localhost'), site.url],
        rpId: 'localhost',
        limits: UNLIMITED,
        log: () => {},
      });
    });
    after(async () => {
      await chrome?.close();
      await sync?.stop();
      if (data) rmSync(data, { recursive: true, force: true });
    });

    it('the recovery key signs in, and the answer given in Chromium is counted', async () => {
      const { recoveryKey, questionId } = await chromiumAnswersOne();
      const d = wk.driver;
      await d.get(`${site.url}/progress/`);
      await waitInPage(d, 'the dashboard', `return !document.querySelector('[data-testid="dashboard"]').hidden`);
      assert.equal(await d.findElement(By.css('[data-testid="total-answers"]')).getText(), '0');
      await d.findElement(By.css('#sync-server')).sendKeys(`http://127.0.0.1:${sync.port}`);
      await d.executeScript(`document.querySelector('[data-sync-action="recovery"]').click()`);
      await waitInPage(
        d,
        'the recovery key field',
        `return !document.querySelector('[data-sync-recovery-form]').hidden`,
      );
      await d.findElement(By.css('#sync-recovery')).sendKeys(recoveryKey);
      // WebKitGTK's driver often calls a button below the fold "not interactable"; the other WebKit tests click in the page too.
      await d.executeScript(`document.querySelector('[data-sync-recovery-form] button[type="submit"]').click()`);
      const status = await waitInPage<string>(
        d,
        'the synced status',
        `const t = document.querySelector('[data-sync-status]').textContent;
       const e = document.querySelector('[data-sync-error]');
       return /^Synced/.test(t) ? t : !e.hidden ? 'error: ' + e.textContent : null`,
        60_000,
      );
      assert.match(status, /^Synced just now · 2 devices$/);
      await waitInPage(
        d,
        'the answer from Chromium',
        `return document.querySelector('[data-testid="total-answers"]').textContent === '1'`,
      );
      // The key stays usable after a reload: the CryptoKey came back from WebKit's IndexedDB.
      await d.navigate().refresh();
      await waitInPage(
        d,
        'a sync after reload',
        `return document.querySelector('[data-sync-signed-in]') && !document.querySelector('[data-sync-signed-in]').hidden`,
      );
      await d.executeScript(`document.querySelector('[data-sync-action="sync"]').click()`);
      const again = await waitInPage<string>(
        d,
        'the second sync',
        `const t = document.querySelector('[data-sync-status]').textContent; return /^Synced|sync server|expired/.test(t) && t`,
        60_000,
      );
      assert.match(again, /^Synced just now/);
      assert.ok(questionId);
    });
  },
);

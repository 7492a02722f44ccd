/**
 * Explorable figures in Mobile Safari's engine (WebKitGTK) over a private copy of dist/: a card's figure hydrates
 * when scrolled into view and a slider moved from the keyboard changes the value label and the readout.
 * Run through `node test/webkit/run.ts`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { By, Key } from 'selenium-webdriver';
import type { SiteServer } from '../e2e/site-server.ts';
import { waitInPage, withSiteAndWebKit, type WebKitSession } from './webkit.ts';

let site: SiteServer;
let wk: WebKitSession;

describe('WebKit (Safari engine): explorable figures', { timeout: 120_000 }, () => {
  withSiteAndWebKit((s, w) => ([site, wk] = [s, w]));

  it('the MFU figure hydrates in view and a slider moves its readout', async () => {
    await wk.driver.get(`${site.url}/cards/mfu/`);
    await wk.driver.executeScript(`document.querySelector('figure[data-figure="mfu"]').scrollIntoView()`);
    await waitInPage(
      wk.driver,
      'the figure to hydrate',
      `return document.querySelector('figure[data-figure="mfu"][data-live]')`,
    );
    const readout = await wk.driver.findElement(By.css('figure[data-figure="mfu"] .fig-readout'));
    const before = await readout.getText();
    assert.match(before, /^MFU is 40%/);
    const gpus = await wk.driver.findElement(By.css('figure[data-figure="mfu"] input[data-control="gpus"]'));
    await gpus.sendKeys(Key.ARROW_RIGHT);
    await waitInPage(
      wk.driver,
      'the readout to change',
      `return document.querySelector('figure[data-figure="mfu"] .fig-readout').textContent !== ${JSON.stringify(before)}`,
    );
    const out = await wk.driver.findElement(By.css('figure[data-figure="mfu"] output[for$="-gpus"]')).getText();
    assert.equal(out, '9 GPUs');
    assert.match(await readout.getText(), /^MFU is 35%/);
  });
});

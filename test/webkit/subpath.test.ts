/**
 * Safari's engine on the site as a phone gets it: the /saturate/ build (dist-base/) over HTTPS from
 * the static test host (test/https/host.ts). WebKit is told to accept the self-signed certificate
 * (WebDriver's acceptInsecureCerts); with it the service worker registers and precaches as on a real
 * certificate. It loads a card, answers a question, and reloads the card with the host gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { By } from 'selenium-webdriver';
import { startHttpsSite, type HttpsSite } from '../https/host.ts';
import { hydrateQuiz, startWebKit, waitForWorker, waitInPage, type WebKitSession, reloadUntil } from './webkit.ts';

let site: HttpsSite;
let wk: WebKitSession;

describe('WebKit under a sub-path over HTTPS', { timeout: 120_000 }, () => {
  before(async () => {
    site = await startHttpsSite({ dir: 'dist-base' });
    wk = await startWebKit({ acceptInsecureCerts: true });
  });
  after(async () => {
    await wk?.quit();
    await site?.dispose();
  });

  it('loads a card, answers a question and reloads it offline under /saturate/', async () => {
    const card = `${site.url}cards/gpu-util/`;
    assert.match(card, /^https:\/\/127\.0\.0\.1:\d+\/saturate\/cards\/gpu-util\/$/);
    await wk.driver.get(card);
    assert.equal(await wk.driver.executeScript('return window.isSecureContext'), true);
    assert.match(await wk.driver.findElement(By.css('article[data-card-id] h1')).getText(), /GPU utilization/);

    await hydrateQuiz(wk.driver);
    await wk.driver.executeScript(`document.querySelector('#quiz [data-option]').click()`);
    await waitInPage(wk.driver, 'the feedback', `return !!document.querySelector('#quiz .feedback h3')`);
    const feedback = await wk.driver.findElement(By.css('#quiz .feedback h3')).getText();
    assert.ok(feedback.length > 0, 'feedback heading has text');

    await waitForWorker(wk.driver);
    const scope = await wk.driver.executeAsyncScript<string>(`const done = arguments[arguments.length - 1];
      navigator.serviceWorker.ready.then((r) => done(r.scope), (e) => done('error: ' + e));`);
    assert.equal(scope, site.url);

    await site.stop();
    // Nothing listens now: the reload can only come from the service worker, answer included.
    await reloadUntil(wk.driver, 'the card from the cache', 'article[data-card-id="gpu-util"] h1');
    await hydrateQuiz(wk.driver);
    await waitInPage(wk.driver, 'the restored answer', `return !!document.querySelector('#quiz .feedback h3')`);
    assert.equal(await wk.driver.findElement(By.css('#quiz .feedback h3')).getText(), feedback);

    // The same card without its trailing slash, and another card never opened, from the precache.
    for (const url of [card.replace(/\/$/, ''), `${site.url}cards/mfu/`]) {
      await wk.driver.get(url);
      await waitInPage(
        wk.driver,
        `${url} from the cache`,
        `return document.readyState === 'complete' && !!document.querySelector('article[data-card-id] h1')`,
      );
    }
  });
});

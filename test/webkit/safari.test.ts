/**
 * Mobile Safari's engine (WebKitGTK) over a private copy of dist/ (startSite): the card renders,
 * a quiz answer survives a reload, the service worker takes control, and the card still opens
 * with the server gone. Run through `node test/webkit/run.ts` (xvfb-run, skip when WebKit is missing).
 * The tests run in order in one browser session; each waits for what it needs rather than sleeping.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { By } from 'selenium-webdriver';
import type { SiteServer } from '../e2e/site-server.ts';
import { savedQuiz } from './quiz-saved.ts';
import {
  hydrateQuiz as hydrateQuizIn,
  withSiteAndWebKit,
  openWithWorker,
  waitInPage,
  type WebKitSession,
  reloadUntil,
} from './webkit.ts';

const CARD = '/cards/gpu-util/';

let site: SiteServer;
let wk: WebKitSession;

/** Scrolls the quiz into view (client:visible) and waits until React has hydrated it. */
const hydrateQuiz = () => hydrateQuizIn(wk.driver);

/** Builds with a progress page record every answer in IndexedDB; earlier builds had no store. */
const storeExpected = () => existsSync(join(site.dir, 'progress/index.html'));

/** Whether the progress store (IndexedDB "saturate", object store "progress") holds an answer for the card. */
async function answerInStore(): Promise<string> {
  return wk.driver.executeAsyncScript<string>(`const done = arguments[arguments.length - 1];
    (async () => {
      const dbs = indexedDB.databases ? await indexedDB.databases() : [];
      if (!dbs.some((d) => d.name === 'saturate')) return 'no store';
      const req = indexedDB.open('saturate');
      const db = await new Promise((res, rej) => { req.onsuccess = () => res(req.result); req.onerror = () => rej(req.error); });
      if (!db.objectStoreNames.contains('progress')) { db.close(); return 'no store'; }
      const all = await new Promise((res, rej) => { const r = db.transaction('progress').objectStore('progress').getAll(); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
      db.close();
      // Single events, or chunks of them after compaction.
      const events = all.flatMap((v) => (Array.isArray(v) ? v : Array.isArray(v && v.events) ? v.events : [v]));
      return events.some((e) => e && e.type === 'answer' && e.cardId === 'gpu-util') ? 'recorded' : 'missing';
    })().then(done, (e) => done('error: ' + e));`);
}

describe('WebKit (Safari engine)', { timeout: 240_000 }, () => {
  withSiteAndWebKit((s, w) => ([site, wk] = [s, w]));

  it('renders the card page', async () => {
    await wk.driver.get(`${site.url}${CARD}`);
    const h1 = await wk.driver.findElement(By.css('article[data-card-id] h1')).getText();
    assert.match(h1, /GPU utilization/);
    const h2s = await wk.driver.findElements(By.css('.prose h2'));
    const titles = await Promise.all(h2s.map((h) => h.getText()));
    assert.ok(titles.includes('One canonical example'), `card sections: ${titles.join(' | ')}`);
    // The quiz is server-rendered, waiting for hydration.
    assert.equal((await wk.driver.findElements(By.css('#quiz section.quiz'))).length, 1);
    const ua = await wk.driver.executeScript<string>('return navigator.userAgent');
    assert.match(ua, /AppleWebKit\/.*Safari/, `user agent: ${ua}`);
  });

  it('the service worker controls the page after load and after a reload', async () => {
    await openWithWorker(wk, `${site.url}${CARD}`);
    await reloadUntil(wk.driver, 'the reloaded page', '[data-card-id]');
    assert.equal(
      await wk.driver.executeScript('return !!navigator.serviceWorker.controller'),
      true,
      'controlled after reload',
    );
  });

  it('a quiz answer persists across a reload', async () => {
    await wk.driver.get(`${site.url}${CARD}`);
    await hydrateQuiz();
    const picked = await wk.driver.executeScript<string>(
      `const o = document.querySelector('#quiz [data-option]'); o.click(); return o.getAttribute('data-option');`,
    );
    await waitInPage(wk.driver, 'the feedback', `return !!document.querySelector('#quiz .feedback h3')`);
    const before = await wk.driver.findElement(By.css('#quiz .feedback h3')).getText();
    assert.ok(before.length > 0, 'feedback heading has text');
    // The quiz in progress is kept in IndexedDB (src/store/quiz-saves.ts), written in the background.
    const savedBy = Date.now() + 15_000;
    while ((await savedQuiz(wk.driver, 'card:gpu-util'))?.answers.length !== 1 && Date.now() < savedBy)
      await new Promise((r) => setTimeout(r, 200));
    assert.equal((await savedQuiz(wk.driver, 'card:gpu-util'))?.answers.length, 1, 'the quiz in progress is saved');
    if (storeExpected()) {
      // The store writes in the background: wait for the write before reloading.
      const deadline = Date.now() + 15_000;
      while ((await answerInStore()) !== 'recorded' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
    }

    await reloadUntil(wk.driver, 'the reloaded page', '#quiz');
    await hydrateQuiz();
    await waitInPage(wk.driver, 'the restored feedback', `return !!document.querySelector('#quiz .feedback h3')`);
    assert.equal(await wk.driver.findElement(By.css('#quiz .feedback h3')).getText(), before);
    const checked = await wk.driver.findElement(By.css(`#quiz [data-option="${picked}"]`)).getAttribute('aria-checked');
    assert.equal(checked, 'true', 'the picked option is still marked');

    // The progress store (IndexedDB) kept the answer across the reload too.
    assert.equal(
      await answerInStore(),
      storeExpected() ? 'recorded' : 'no store',
      'the progress store (IndexedDB) holds the answer after the reload',
    );
  });

  it('a reload with the server stopped still shows the card', async () => {
    await openWithWorker(wk, `${site.url}${CARD}`);
    await site.stop();
    // Nothing listens on the port now: the page can only come from the service worker's cache.
    await reloadUntil(wk.driver, 'the card from the cache', 'article[data-card-id="gpu-util"] h1');
    const h1 = await wk.driver.findElement(By.css('article[data-card-id] h1')).getText();
    assert.match(h1, /GPU utilization/);
    // Another card the learner never opened comes from the precache too.
    await wk.driver.get(`${site.url}/topics/`);
    await waitInPage(
      wk.driver,
      'the topics page from the cache',
      `return document.readyState === 'complete' && !!document.querySelector('.card-list a[data-card]')`,
    );
    const reachable = await wk.driver.executeScript<boolean>(`return !!document.querySelector('h1')`);
    assert.equal(reachable, true);
  });
});

/**
 * Finish what you start, in Mobile Safari's engine (WebKitGTK): a practice quiz answered in part, its
 * window closed, then the site opened in a new window: home offers the quiz, and it resumes at the
 * question the learner was on. Run through `node test/webkit/run.ts`.
 *
 * What this does NOT test: closing the browser and starting it again with the same profile. Under
 * WebDriver (`--automation`) MiniBrowser always uses an ephemeral data store (nothing is kept when the
 * session ends: tried with IndexedDB and localStorage, both empty in the next session), and it has no
 * option for a profile directory. A new window in the same session is a new browsing context: it
 * shares IndexedDB with the closed one but not sessionStorage, which is where quizzes in progress
 * lived before and why they started again at question 1 in a new tab or a reopened app.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SiteServer } from '../e2e/site-server.ts';
import { waitInPage, withSiteAndWebKit, type WebKitSession } from './webkit.ts';
import { savedQuiz } from './quiz-saved.ts';

let site: SiteServer;
let wk: WebKitSession;

/** Answers the next `n` questions right in the page (the quiz's own buttons), pressing Next after each. */
async function answerRight(n: number): Promise<void> {
  const error = await wk.driver.executeAsyncScript<string>(`const done = arguments[arguments.length - 1];
    (async () => {
      const bank = await (await fetch('/bank.json')).json();
      const root = document.querySelector('section.quiz');
      const tick = () => new Promise((r) => setTimeout(r, 0));
      const button = (re) => [...root.querySelectorAll('button')].find((b) => re.test(b.textContent || ''));
      for (let i = 0; i < ${n}; i++) {
        const id = root.querySelector('.prompt').id.replace(/^q-(.*)-prompt$/, '$1');
        const q = bank.find((b) => b.id === id);
        if (q.kind === 'numeric') {
          const input = root.querySelector('input[inputmode="decimal"]');
          Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, String(q.answer));
          input.dispatchEvent(new Event('input', { bubbles: true }));
          await tick();
          button(/^Check$/).click();
        } else {
          for (const o of q.options.filter((o) => o.correct)) {
            root.querySelector('[data-option="' + o.key + '"]').click();
            await tick();
          }
          if (q.kind === 'multiple') button(/^Check answer$/).click();
        }
        await tick();
        if (!/Correct/.test(root.querySelector('.feedback h3')?.textContent || '')) return 'not marked right: ' + id;
        button(/^(Next question|See results)$/).click();
        await tick();
      }
      return '';
    })().then(done, (e) => done(String(e)));`);
  assert.equal(error, '');
}

describe('WebKit (Safari engine): a quiz in progress resumes', { timeout: 120_000 }, () => {
  withSiteAndWebKit((s, w) => ([site, wk] = [s, w]));

  it('a practice quiz answered in part, its window closed, resumes from home in a new window', async () => {
    const d = wk.driver;
    await d.get(`${site.url}/practice/random/?seed=webkit1`);
    await waitInPage(
      d,
      'the quiz',
      `return document.querySelector('.quiz-progress')?.textContent === 'Question 1 of 30'`,
    );
    await answerRight(3);
    const prompt4 = await d.executeScript<string>(`return document.querySelector('section.quiz .prompt').id`);
    const savedBy = Date.now() + 15_000;
    while ((await savedQuiz(d, 'practice:webkit1'))?.index !== 3 && Date.now() < savedBy)
      await new Promise((r) => setTimeout(r, 200));
    assert.equal((await savedQuiz(d, 'practice:webkit1'))?.answers.length, 3, 'saved with 3 answers');

    const first = await d.getWindowHandle();
    await d.switchTo().newWindow('window');
    const second = await d.getWindowHandle();
    await d.switchTo().window(first);
    await d.close();
    await d.switchTo().window(second);

    await d.get(`${site.url}/`);
    const label = await waitInPage<string>(
      d,
      'the resume link on home',
      `return document.querySelector('#continue a[data-step="resume"]')?.textContent`,
    );
    assert.equal(label, 'Resume Random practice quiz: 3/30');
    await d.executeScript(`document.querySelector('#continue a[data-step="resume"]').click()`);
    await waitInPage(
      d,
      'the quiz at question 4',
      `return location.search === '?seed=webkit1' && document.querySelector('.quiz-progress')?.textContent === 'Question 4 of 30'`,
    );
    assert.equal(await d.executeScript<string>(`return document.querySelector('section.quiz .prompt').id`), prompt4);
    assert.equal(
      await d.executeScript<number>(`return Object.keys(sessionStorage).filter((k) => k.includes('quiz')).length`),
      0,
      'nothing came from sessionStorage',
    );
  });
});

/** Reading the quizzes kept in progress (IndexedDB "saturate-quiz", src/store/quiz-saves.ts) from a WebKit page. */
import type { WebDriver } from 'selenium-webdriver';

/** The saved quiz `quizId` as the page's IndexedDB holds it (null when none). */
export function savedQuiz(driver: WebDriver, quizId: string): Promise<{ index: number; answers: unknown[] } | null> {
  return driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
    const req = indexedDB.open('saturate-quiz');
    req.onerror = () => done(null);
    req.onsuccess = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('in-progress')) { db.close(); return done(null); }
      const get = db.transaction('in-progress').objectStore('in-progress').get(${JSON.stringify(quizId)});
      get.onsuccess = () => { db.close(); done(get.result ?? null); };
      get.onerror = () => { db.close(); done(null); };
    };`);
}

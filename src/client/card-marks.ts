/**
 * Marks on card lists (read ✓, mastered, due for review: src/lib/card-marks.ts has the rules). Lists
 * are static HTML: a list with `data-marks` holds links with `data-card` and `data-questions`; this
 * module writes each link's marks as text (a screen reader hears "Read, due for review"; the badges
 * are not colour alone). First from the facts cached in localStorage (no store needed: card pages
 * stay light), then live from the progress store where the page has it: lists marked
 * `data-marks-live` load it (topics pages), others use it only when the page loads it anyway (home).
 */
import { progressStore, whenStoreLoaded } from './progress-boot.ts';
import type { ProgressModule } from './progress-queue.ts';
import { cardFacts, marksFor, marksHtml, type CardFacts } from '../lib/card-marks.ts';

const CACHE_KEY = 'saturate:card-facts';

function cached(): CardFacts {
  try {
    return JSON.parse(localStorage.getItem(CACHE_KEY) ?? '{}') as CardFacts;
  } catch {
    return {}; // storage blocked or a bad value: no marks until the store says
  }
}

/** Writes every list's marks for `facts` at `nowMs`. */
export function applyCardMarks(facts: CardFacts, nowMs: number): void {
  for (const a of document.querySelectorAll<HTMLElement>('[data-marks] [data-card]')) {
    const marks = marksFor(facts[a.dataset['card']!], Number(a.dataset['questions'] ?? 0), nowMs);
    const key = marks.join(' ');
    if ((a.dataset['marked'] ?? '') === key) continue;
    a.dataset['marked'] = key;
    a.querySelector('.marks')?.remove();
    if (!marks.length) continue;
    const box = document.createElement('span');
    box.className = 'marks';
    box.innerHTML = marksHtml(marks);
    a.append(box);
  }
}

function live(p: ProgressModule): void {
  p.watchProgress((s) => {
    const facts = cardFacts(s.answers, s.schedule.questions, s.readCardIds);
    try {
      if (s.persistent) localStorage.setItem(CACHE_KEY, JSON.stringify(facts));
    } catch {
      /* storage blocked: marks still show on this page */
    }
    applyCardMarks(facts, Date.now());
  });
}

if (typeof document !== 'undefined' && document.querySelector('[data-marks]')) {
  applyCardMarks(cached(), Date.now());
  if (document.querySelector('[data-marks-live]')) void progressStore().then(live, () => undefined);
  else whenStoreLoaded(live);
}

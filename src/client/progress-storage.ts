/**
 * The "On this device" panel of /progress/ (src/components/ProgressDashboard.astro): the not-saved reason
 * (always shown here), storage use (`estimate()`), whether the browser keeps it (`persist()`), and
 * quarantined records (reported, never hidden).
 */
import type { ProgressSnapshot } from '../store/progress.ts';
import { formatBytes } from '../lib/progress-text.ts';
import { h } from './progress-dom.ts';

type Usage = { usageBytes: number; quotaBytes: number } | null;

/** The last answer of `estimate()`, shown while the next one is asked (no flash of "…" on each update). */
let lastUsage: Usage | undefined;

/** Renders the panel into `slot` for `snapshot`; storage use and persistence fill in when the browser answers. */
export function renderStorage(slot: HTMLElement, snapshot: ProgressSnapshot, estimate: () => Promise<Usage>): void {
  const use = h('li', { 'data-testid': 'storage-use' });
  const persistent = h('li', { 'data-testid': 'persistent' });
  const showUse = (usage: Usage | undefined) => {
    lastUsage = usage;
    const text =
      usage === undefined
        ? '…'
        : usage
          ? `${formatBytes(usage.usageBytes)} of ${formatBytes(usage.quotaBytes)} available`
          : 'this browser does not say';
    use.textContent = `Storage used by Saturate (pages for offline use included): ${text}`;
  };
  const showPersisted = (persisted: boolean | null) => {
    persistent.replaceChildren(
      persisted
        ? 'Protected: the browser will not clear it to free space.'
        : 'Not protected: the browser may clear it when the device runs low on space.',
      ' ',
    );
    if (!persisted && !snapshot.notSaved && 'persist' in (navigator.storage ?? {})) {
      const ask = h('button', { type: 'button', class: 'button secondary' }, 'Ask the browser to keep it');
      ask.addEventListener('click', () => {
        void navigator.storage?.persist?.().then((kept) => showPersisted(kept ?? false));
      });
      persistent.append(ask);
    }
  };
  showUse(lastUsage);
  showPersisted(snapshot.persistGranted);
  const saved = snapshot.notSaved
    ? h(
        'p',
        { class: 'notice bad', role: 'status', 'data-testid': 'not-saved' },
        h('strong', {}, "Progress isn't being saved in this browser"),
        ` (${snapshot.notSaved.message})`,
      )
    : h(
        'p',
        {},
        'Your progress is saved in this browser, on this device only. Export a backup to keep a copy or move it.',
      );
  const n = snapshot.quarantined.length;
  const quarantined =
    n > 0 &&
    h(
      'div',
      { class: 'notice bad', 'data-testid': 'quarantined' },
      h('h3', {}, `${n} damaged ${n === 1 ? 'record' : 'records'} set aside`),
      h(
        'p',
        {},
        'These could not be read, so they are kept apart (not deleted) and do not count. Exports include only readable records.',
      ),
      h('ul', {}, ...snapshot.quarantined.map((q) => h('li', {}, h('code', {}, q.key), `: ${q.reason}`))),
    );
  slot.replaceChildren(saved, h('ul', { class: 'plain-list' }, use, persistent), ...(quarantined ? [quarantined] : []));
  void estimate().then(showUse, () => showUse(null));
  void navigator.storage?.persisted?.().then(showPersisted, () => undefined);
}

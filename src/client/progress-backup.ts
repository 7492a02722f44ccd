/**
 * The Backup panel of /progress/ (src/components/ProgressDashboard.astro): export (a versioned JSON
 * file) and import (pick a file → preview what will change → confirm → merge). A bad file gets the
 * store's message and changes nothing; a file over the cap is refused before it is read into memory.
 * Its state lives here, so it survives the store's updates (an import's own update included).
 */
import type { ImportPreview, ImportRefusal, ImportResult } from '../store/progress.ts';
import { MAX_BACKUP_BYTES } from '../lib/backup-limits.ts';
import { formatBytes, plural } from '../lib/progress-text.ts';
import { usableLocale } from '../lib/locale.ts';
import { h } from './progress-dom.ts';

/** What the panel needs of the store. */
export interface BackupApi {
  exportBackup: (now: number) => Promise<{ fileName: string; text: string }>;
  previewImport: (text: unknown) => Promise<ImportPreview | ImportRefusal>;
  applyImport: (text: unknown) => Promise<ImportResult>;
}

const TYPE_NAMES: Record<string, [string, string]> = {
  answer: ['answer', 'answers'],
  'card-read': ['card read', 'cards read'],
  saved: ['save or unsave', 'saves and unsaves'],
  'quiz-done': ['finished quiz', 'finished quizzes'],
  'lab-done': ['lab', 'labs'],
  undo: ['undone answer', 'undone answers'],
};

/** A date in the reader's language, or in English where the browser's language tag is one Intl rejects. */
function shortDate(ms: number): string {
  return new Date(ms).toLocaleDateString(usableLocale(navigator.language), { dateStyle: 'medium' });
}

/** Wires the panel's static markup (`panel`: the Backup section) to the store. */
export function startBackup(panel: HTMLElement, api: BackupApi): void {
  const input = panel.querySelector<HTMLInputElement>('#import-file')!;
  const status = panel.querySelector<HTMLElement>('[data-backup-status]')!;
  const busy = (on: boolean) => {
    input.disabled = on;
    for (const b of status.querySelectorAll<HTMLButtonElement>('[data-import-confirm]'))
      b.disabled = on || b.dataset['nothing'] === '';
  };
  const error = (message: string) =>
    status.replaceChildren(h('p', { class: 'notice bad', role: 'alert', 'data-testid': 'import-error' }, message));

  panel.querySelector('[data-backup-export]')!.addEventListener('click', () => {
    void api.exportBackup(Date.now()).then(({ fileName, text }) => {
      const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
      const a = h('a', { href: url, download: fileName });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  });

  const confirm = async (text: string) => {
    busy(true);
    const result = await api.applyImport(text);
    busy(false);
    if (result.ok)
      status.replaceChildren(
        h(
          'p',
          { class: 'notice ok', 'data-testid': 'import-done' },
          `Imported: ${plural(result.added, 'new record')} added.`,
        ),
      );
    else error(`${result.message} Nothing was changed.`);
    input.value = '';
  };

  const showPreview = (text: string, name: string, p: ImportPreview) => {
    const items =
      p.added > 0 &&
      h(
        'ul',
        {},
        ...Object.entries(p.addedByType).map(([type, n]) => {
          const [one, many] = TYPE_NAMES[type] ?? [type, type];
          return h('li', {}, plural(n, one, many));
        }),
        p.savedChanges.saved.length > 0 && h('li', {}, `${plural(p.savedChanges.saved.length, 'card')} saved`),
        p.savedChanges.unsaved.length > 0 && h('li', {}, `${plural(p.savedChanges.unsaved.length, 'card')} unsaved`),
        p.range && h('li', {}, `from ${shortDate(p.range.from)} to ${shortDate(p.range.to)}`),
      );
    const go = h(
      'button',
      { type: 'button', class: 'button', 'data-import-confirm': '', 'data-nothing': p.added === 0 ? '' : undefined },
      p.added === 0 ? 'Nothing to import' : `Import ${plural(p.added, 'record')}`,
    );
    go.disabled = p.added === 0;
    go.addEventListener('click', () => void confirm(text));
    const cancel = h('button', { type: 'button', class: 'button secondary' }, 'Cancel');
    cancel.addEventListener('click', () => {
      status.replaceChildren();
      input.value = '';
    });
    status.replaceChildren(
      h(
        'div',
        { class: 'notice', 'data-testid': 'import-preview' },
        h(
          'p',
          {},
          h('strong', {}, name),
          ` holds ${plural(p.inFile, 'record')}: ${plural(p.added, 'new one')} would be added, ${p.alreadyStored} already here.`,
        ),
        items,
        h('div', { class: 'actions' }, go, cancel),
      ),
    );
  };

  const pick = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_BACKUP_BYTES) {
      error(
        `This file is ${formatBytes(file.size)}, larger than ${MAX_BACKUP_BYTES / 1024 / 1024} MB, so it is not a Saturate backup. Pick the file Saturate exported. Nothing was imported.`,
      );
      return;
    }
    busy(true);
    try {
      const text = await file.text();
      const preview = await api.previewImport(text);
      if (preview.ok) showPreview(text, file.name, preview);
      else error(`${preview.message} Nothing was changed.`);
    } catch {
      error('This file could not be read. Pick the .json file Saturate exported. Nothing was changed.');
    } finally {
      busy(false);
    }
  };
  input.addEventListener('change', () => void pick(input.files?.[0]));
}

/**
 * Export (a versioned JSON file) and import (pick a file → preview what will change → confirm →
 * merge). A bad file gets the store's message and changes nothing; a file over the cap is refused
 * before it is read into memory.
 */
import { useRef, useState } from 'react';
import type { ImportPreview, ImportRefusal, ImportResult } from '../../store/progress.ts';
import { MAX_BACKUP_BYTES } from '../../lib/backup-limits.ts';
import { formatBytes, plural } from '../../lib/progress-text.ts';
import { usableLocale } from '../../lib/locale.ts';

interface Api {
  exportBackup: (now: number) => Promise<{ fileName: string; text: string }>;
  previewImport: (text: unknown) => Promise<ImportPreview | ImportRefusal>;
  applyImport: (text: unknown) => Promise<ImportResult>;
}

type Step =
  | { kind: 'idle' }
  | { kind: 'error'; message: string }
  | { kind: 'preview'; text: string; name: string; preview: ImportPreview }
  | { kind: 'done'; added: number };

const TYPE_NAMES: Record<string, [string, string]> = {
  answer: ['answer', 'answers'],
  'card-read': ['card read', 'cards read'],
  saved: ['save or unsave', 'saves and unsaves'],
  'quiz-done': ['finished quiz', 'finished quizzes'],
  'lab-done': ['lab', 'labs'],
  undo: ['undone answer', 'undone answers'],
};

export function BackupPanel({ api }: { api: Api }) {
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const download = async () => {
    const { fileName, text } = await api.exportBackup(Date.now());
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = fileName;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  const pick = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_BACKUP_BYTES) {
      setStep({
        kind: 'error',
        message: `This file is ${formatBytes(file.size)}, larger than ${MAX_BACKUP_BYTES / 1024 / 1024} MB, so it is not a Saturate backup. Pick the file Saturate exported. Nothing was imported.`,
      });
      return;
    }
    setBusy(true);
    try {
      const text = await file.text();
      const preview = await api.previewImport(text);
      setStep(
        preview.ok
          ? { kind: 'preview', text, name: file.name, preview }
          : { kind: 'error', message: `${preview.message} Nothing was changed.` },
      );
    } catch {
      setStep({
        kind: 'error',
        message: 'This file could not be read. Pick the .json file Saturate exported. Nothing was changed.',
      });
    } finally {
      setBusy(false);
    }
  };

  const confirm = async (text: string) => {
    setBusy(true);
    const result = await api.applyImport(text);
    setBusy(false);
    setStep(
      result.ok
        ? { kind: 'done', added: result.added }
        : { kind: 'error', message: `${result.message} Nothing was changed.` },
    );
    if (input.current) input.current.value = '';
  };

  return (
    <>
      <p>
        A backup is one file with everything you did here. Import it on another device or after clearing this browser:
        it adds what is missing and never replaces newer progress.
      </p>
      <div className="actions">
        <button type="button" className="button" onClick={() => void download()}>
          Export backup
        </button>
      </div>
      {/* The native file control, visually hidden but focusable (Tab, then Enter or Space opens the
          picker); its label is drawn as the button (src/styles/progress.css: .file-pick). */}
      <p className="file-pick">
        <input
          id="import-file"
          ref={input}
          type="file"
          accept=".json,application/json"
          disabled={busy}
          onChange={(e) => void pick(e.currentTarget.files?.[0])}
        />
        <label className="button secondary" htmlFor="import-file">
          Import a backup…
        </label>
        <span className="muted">A .json file, up to {MAX_BACKUP_BYTES / 1024 / 1024} MB.</span>
      </p>
      <div aria-live="polite">
        {step.kind === 'error' && (
          <p className="notice bad" role="alert" data-testid="import-error">
            {step.message}
          </p>
        )}
        {step.kind === 'done' && (
          <p className="notice ok" data-testid="import-done">
            Imported: {plural(step.added, 'new record')} added.
          </p>
        )}
        {step.kind === 'preview' && (
          <div className="notice" data-testid="import-preview">
            <p>
              <strong>{step.name}</strong> holds {plural(step.preview.inFile, 'record')}:{' '}
              {plural(step.preview.added, 'new one')} would be added, {step.preview.alreadyStored} already here.
            </p>
            {step.preview.added > 0 && (
              <ul>
                {Object.entries(step.preview.addedByType).map(([type, n]) => {
                  const [one, many] = TYPE_NAMES[type] ?? [type, type];
                  return <li key={type}>{plural(n, one, many)}</li>;
                })}
                {step.preview.savedChanges.saved.length > 0 && (
                  <li>{plural(step.preview.savedChanges.saved.length, 'card')} saved</li>
                )}
                {step.preview.savedChanges.unsaved.length > 0 && (
                  <li>{plural(step.preview.savedChanges.unsaved.length, 'card')} unsaved</li>
                )}
                {step.preview.range && (
                  <li>
                    from {shortDate(step.preview.range.from)} to {shortDate(step.preview.range.to)}
                  </li>
                )}
              </ul>
            )}
            <div className="actions">
              <button
                type="button"
                className="button"
                disabled={busy || step.preview.added === 0}
                onClick={() => void confirm(step.text)}
              >
                {step.preview.added === 0 ? 'Nothing to import' : `Import ${plural(step.preview.added, 'record')}`}
              </button>
              <button
                type="button"
                className="button secondary"
                onClick={() => {
                  setStep({ kind: 'idle' });
                  if (input.current) input.current.value = '';
                }}
              >
                Cancel
              </button>
            </div>
          </div>
        )}
      </div>
    </>
  );
}

/** A date in the reader's language, or in English where the browser's language tag is one Intl rejects. */
function shortDate(ms: number): string {
  return new Date(ms).toLocaleDateString(usableLocale(navigator.language), { dateStyle: 'medium' });
}

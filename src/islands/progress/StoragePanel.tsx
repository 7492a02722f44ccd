/**
 * Where progress lives: not-saved reason (always shown here), storage use (`estimate()`),
 * whether the browser keeps it (`persist()`), and quarantined records (reported, never hidden).
 */
import { useEffect, useState } from 'react';
import type { ProgressSnapshot } from '../../store/progress.ts';
import { formatBytes } from '../../lib/progress-text.ts';

interface Props {
  snapshot: ProgressSnapshot;
  estimate: () => Promise<{ usageBytes: number; quotaBytes: number } | null>;
}

export function StoragePanel({ snapshot, estimate }: Props) {
  const [usage, setUsage] = useState<{ usageBytes: number; quotaBytes: number } | null | undefined>(undefined);
  const [persisted, setPersisted] = useState<boolean | null>(snapshot.persistGranted);
  useEffect(() => {
    void estimate().then(setUsage);
    void navigator.storage?.persisted?.().then(setPersisted, () => undefined);
  }, [estimate, snapshot]);
  const ask = async () => setPersisted((await navigator.storage?.persist?.()) ?? false);
  return (
    <>
      {snapshot.notSaved ? (
        <p className="notice bad" role="status" data-testid="not-saved">
          <strong>Progress isn't being saved in this browser</strong> ({snapshot.notSaved.message})
        </p>
      ) : (
        <p>Your progress is saved in this browser, on this device only. Export a backup to keep a copy or move it.</p>
      )}
      <ul className="plain-list">
        <li data-testid="storage-use">
          Storage used by Saturate (pages for offline use included):{' '}
          {usage === undefined
            ? '…'
            : usage
              ? `${formatBytes(usage.usageBytes)} of ${formatBytes(usage.quotaBytes)} available`
              : 'this browser does not say'}
        </li>
        <li data-testid="persistent">
          {persisted
            ? 'Protected: the browser will not clear it to free space.'
            : 'Not protected: the browser may clear it when the device runs low on space.'}{' '}
          {!persisted && !snapshot.notSaved && 'persist' in (navigator.storage ?? {}) && (
            <button type="button" className="button secondary" onClick={() => void ask()}>
              Ask the browser to keep it
            </button>
          )}
        </li>
      </ul>
      {snapshot.quarantined.length > 0 && (
        <div className="notice bad" data-testid="quarantined">
          <h3>
            {snapshot.quarantined.length} damaged {snapshot.quarantined.length === 1 ? 'record' : 'records'} set aside
          </h3>
          <p>
            These could not be read, so they are kept apart (not deleted) and do not count. Exports include only
            readable records.
          </p>
          <ul>
            {snapshot.quarantined.map((q) => (
              <li key={q.key}>
                <code>{q.key}</code>: {q.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

/**
 * The words of the sync panel on /progress/ (pure): the status line ("Synced 2 min ago · 3 devices"), and each
 * failure in words with what to do. `now` is passed in.
 */

/** Why a sync did not happen; each has a message below. */
export type SyncProblem =
  'offline' | 'unreachable' | 'session-expired' | 'quota-full' | 'rate-limited' | 'refused' | 'wrong-key' | 'no-server';

/** What to tell the learner for each problem. */
export const PROBLEM_TEXT: Record<SyncProblem, string> = {
  offline: 'Offline: your progress is kept here and syncs when you are back online.',
  unreachable: 'The sync server did not answer. Your progress is kept here; sync tries again in a few minutes.',
  'session-expired': 'Your sign-in has expired. Sign in again to keep syncing; nothing here is lost.',
  'quota-full': 'Your account on the sync server is full. New progress is kept on this device but not synced.',
  'rate-limited': 'The sync server asked to slow down. Sync tries again in a minute.',
  refused: 'The sync server refused this request. Your progress is kept here.',
  'wrong-key': 'Some synced items could not be read with this account key; they were skipped.',
  'no-server': 'No sync server is set. Enter its address below.',
};

/**
 * How long ago, in words.
 * @example ago(60_000 * 2, 0) // "2 min ago"
 */
export function ago(now: number, then: number): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 45) return 'just now';
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  return d === 1 ? 'yesterday' : `${d} days ago`;
}

/**
 * The status line.
 * @example statusLine({ lastSyncAt: 0, devices: 3, pending: 0 }, 120_000) // "Synced 2 min ago · 3 devices"
 */
export function statusLine(
  s: { lastSyncAt: number | null; devices: number | null; pending: number },
  now: number,
): string {
  const parts = [s.lastSyncAt === null ? 'Not synced yet' : `Synced ${ago(now, s.lastSyncAt)}`];
  if (s.devices !== null) parts.push(s.devices === 1 ? '1 device' : `${s.devices} devices`);
  if (s.pending > 0) parts.push(`${s.pending} to send`);
  return parts.join(' · ');
}

/** Result of checking a sync server address the learner typed. */
export type ServerUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * A sync server address: https, or http on this machine (localhost, 127.0.0.1, [::1]); no path beyond `/`,
 * returned without a trailing slash.
 * @example checkServerUrl('sync.example.org') // { ok: true, url: 'https://sync.example.org' }
 */
export function checkServerUrl(text: string): ServerUrlCheck {
  let t = text.trim();
  if (!t) return { ok: false, message: 'Enter the sync server address, such as https://sync.example.org.' };
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) t = `https://${t}`;
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return { ok: false, message: `"${text.trim()}" is not a web address. Try https://sync.example.org.` };
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) || u.hostname.endsWith('.localhost');
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && local))
    return { ok: false, message: 'The sync server must use https:// (http:// only for localhost).' };
  if (u.username || u.password || u.search || u.hash)
    return { ok: false, message: 'Enter only the server address, without a name, password, ? or #.' };
  return { ok: true, url: `${u.origin}${u.pathname.replace(/\/+$/, '')}` };
}

/**
 * Small settings this device remembers in localStorage (the lab server's URL, a price), read and written
 * without throwing: where storage is blocked (private mode) nothing is remembered and the page still works.
 */

/** Where the last lab server URL (with its token) is remembered: the labs and the fleet page share it. */
export const LAB_SERVER_KEY = 'saturate:lab-server';

export const remembered = {
  get: (k: string): string | null => {
    try {
      return localStorage.getItem(k);
    } catch {
      return null; // storage blocked (private mode): nothing remembered
    }
  },
  set: (k: string, v: string): void => {
    try {
      localStorage.setItem(k, v);
    } catch {
      /* storage blocked: the page still works, it just won't remember */
    }
  },
  remove: (k: string): void => {
    try {
      localStorage.removeItem(k);
    } catch {
      /* storage blocked: nothing was kept */
    }
  },
};

/**
 * Takes the lab server's token from this page's address (`/?token=…`, the URL `npm start` prints, on any
 * page): remembers this origin with it as the lab server and removes the token from the address bar and
 * the history entry. Returns the lab server URL now remembered, or null when none is.
 */
export function absorbServerToken(): string | null {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token) {
    remembered.set(LAB_SERVER_KEY, `${location.origin}/?token=${encodeURIComponent(token)}`);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
    return `${location.origin}/?token=${encodeURIComponent(token)}`;
  }
  return remembered.get(LAB_SERVER_KEY);
}

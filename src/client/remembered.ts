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
};

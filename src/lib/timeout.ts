/**
 * Settles like `p`, or rejects with `onTimeout()` once `ms` have passed first. The timer is cleared
 * either way, so a settled promise leaves nothing pending.
 *
 * @example
 * await withTimeout(store.readAll(), 5000, () => new Error('storage did not answer'));
 */
export function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

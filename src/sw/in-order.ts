/**
 * Runs `task` over `items` in their order with at most `lanes` running at once, and rejects with the first failure
 * (no later item is started after it). The service worker installs its precache this way: in order of need, a few
 * requests at a time, as a browser loads a page's own files, instead of one after another.
 * @example await inOrder(['a', 'b', 'c'], 2, fetchOne) // starts a and b, then c as soon as one of them is done
 */
export async function inOrder<T>(
  items: readonly T[],
  lanes: number,
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++] as T;
      try {
        await task(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane));
}

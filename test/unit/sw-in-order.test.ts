import { describe, expect, it } from 'vitest';
import { inOrder } from '../../src/sw/in-order.ts';

/** A task whose items finish when the test says, recording what started and how many ran at once. */
function controlled() {
  const started: string[] = [];
  const finish = new Map<string, (ok: boolean) => void>();
  let running = 0;
  let most = 0;
  const task = (item: string) =>
    new Promise<void>((resolve, reject) => {
      started.push(item);
      running++;
      most = Math.max(most, running);
      finish.set(item, (ok) => {
        running--;
        if (ok) resolve();
        else reject(new Error(`${item} failed`));
      });
    });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { started, finish, task, settle, most: () => most };
}

describe('the worker installs its precache in order, a few files at a time', () => {
  it('starts the first files at once, never more than the lanes, and the next as soon as one is done', async () => {
    const c = controlled();
    const done = inOrder(['shell', 'home', 'bank', 'card-1', 'card-2'], 2, c.task);
    await c.settle();
    expect(c.started).toEqual(['shell', 'home']);
    c.finish.get('home')!(true);
    await c.settle();
    expect(c.started).toEqual(['shell', 'home', 'bank']);
    for (const item of ['shell', 'bank', 'card-1', 'card-2']) {
      await c.settle();
      c.finish.get(item)!(true);
    }
    await done;
    expect(c.started).toEqual(['shell', 'home', 'bank', 'card-1', 'card-2']);
    expect(c.most()).toBe(2);
  });

  it('fails the install with the first failure and starts nothing after it', async () => {
    const c = controlled();
    const done = inOrder(['a', 'b', 'c', 'd'], 2, c.task);
    await c.settle();
    c.finish.get('a')!(false);
    await expect(done).rejects.toThrow('a failed');
    c.finish.get('b')!(true);
    await c.settle();
    expect(c.started).toEqual(['a', 'b']);
  });

  it('handles an empty list and more lanes than files', async () => {
    await expect(inOrder([], 6, async () => {})).resolves.toBeUndefined();
    const seen: number[] = [];
    await inOrder([1, 2], 6, async (n) => void seen.push(n));
    expect(seen).toEqual([1, 2]);
  });
});

/**
 * Two sync-server processes (`node server/sync/main.ts`) on one PostgreSQL: devices alternate between them and
 * push at the same time while others pull as they go. Nothing is lost, nothing duplicated, and a device that
 * pulled along the way ends with exactly what a fresh pull returns (no item skipped by a cursor).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POSTGRES_TEST_LIMITS, startPostgres, type RunningPostgres } from './postgres-harness.ts';
import { newSecrets, plainEvents, sealEvent, SyncClient, type Secrets } from './client.ts';
import type { StoredItem, SyncItem } from '../../src/protocol/sync.ts';
import type { SoftPasskey } from './authenticator.ts';

vi.setConfig(POSTGRES_TEST_LIMITS);
const ORIGIN = 'http://localhost:4321';

/** Starts `npm run sync-server` on port 0; resolves with its URL once it prints it. */
function startProcess(database: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['server/sync/main.ts', '--port', '0', '--database', database, '--allow-origin', ORIGIN],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /Saturate sync server on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => reject(new Error(`sync-server exited ${code}: ${out}`)));
  });
}

describe('two sync-server processes on one PostgreSQL', () => {
  let db: RunningPostgres;
  const servers: { url: string; child: ChildProcess }[] = [];
  beforeAll(async () => {
    db = await startPostgres();
    servers.push(...(await Promise.all([startProcess(db.url), startProcess(db.url)])));
  });
  afterAll(async () => {
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await new Promise((r) => (s.child.exitCode === null ? s.child.once('exit', r) : r(null)));
    }
    await db?.stop();
  });

  it('devices alternating between the two push at once: nothing lost, nothing duplicated, no item skipped', async () => {
    const [a, b] = servers.map((s) => s.url) as [string, string];
    const accounts: { secrets: Secrets; passkey: SoftPasskey; devices: SyncClient[] }[] = [];
    for (let n = 0; n < 3; n++) {
      const secrets = await newSecrets();
      const first = new SyncClient(n % 2 ? a : b, ORIGIN, 'localhost');
      const { passkey } = await first.signup(secrets);
      const devices = [first];
      // Each further device signs in on the other process than the one before.
      for (let d = 1; d < 4; d++) {
        const dev = new SyncClient(d % 2 ? a : b, ORIGIN, 'localhost');
        await dev.signin(passkey);
        devices.push(dev);
      }
      accounts.push({ secrets, passkey, devices });
    }
    const pushed = new Map<number, Set<string>>();
    const watched = new Map<number, StoredItem[]>();
    let pushing = true;
    const work = accounts.flatMap((acct, n) => {
      pushed.set(n, new Set());
      const pushers = acct.devices.slice(0, 3).map(async (dev, d) => {
        const events = plainEvents(8 * 25, `acct${n}-dev${d}`);
        const items = await Promise.all(events.map((e) => sealEvent(acct.secrets, e)));
        for (let i = 0; i < 8; i++) {
          // Alternate processes push by push; every push repeats one item of the last (a retry) as a duplicate.
          dev.base = i % 2 ? a : b;
          const batch: SyncItem[] = items.slice(i * 25, (i + 1) * 25);
          if (i > 0) batch.push(items[i * 25 - 1]!);
          await dev.push(batch);
          for (const it of batch) pushed.get(n)!.add(it.id);
        }
      });
      const watcher = acct.devices[3]!;
      watched.set(n, []);
      const pulling = (async () => {
        let turn = 0;
        while (pushing) {
          watcher.base = turn++ % 2 ? a : b;
          watched.get(n)!.push(...(await watcher.pullAll(37)));
          await new Promise((r) => setTimeout(r, 150));
        }
      })();
      return [Promise.all(pushers), pulling];
    });
    await Promise.all(work.filter((_, i) => i % 2 === 0));
    pushing = false;
    await Promise.all(work);

    for (const [n, acct] of accounts.entries()) {
      const watcher = acct.devices[3]!;
      watched.get(n)!.push(...(await watcher.pullAll()));
      const fresh = new SyncClient(b, ORIGIN, 'localhost');
      fresh.token = acct.devices[0]!.token;
      const all = await fresh.pullAll();
      const ids = all.map((i) => i.id);
      expect(new Set(ids).size).toBe(ids.length); // nothing duplicated
      expect(new Set(ids)).toEqual(pushed.get(n)); // nothing lost
      expect(ids.length).toBe(3 * 8 * 25);
      expect(all.map((i) => i.seq)).toEqual(all.map((_, k) => k + 1)); // seqs without gaps
      // The device that pulled while others pushed has exactly the same items, in the same order.
      expect(watched.get(n)!.map((i) => i.id)).toEqual(ids);
    }
  });
});

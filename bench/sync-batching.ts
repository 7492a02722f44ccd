/**
 * What a new device's first sync of 10,000 events would cost on the wire if the client packed several events
 * into one item, or compressed before encrypting (issue #24 item 9: ≤ 2 MB). Today's format is one event per
 * item, `{ v: 1, event }` sealed with AES-GCM (`src/lib/sync/items.ts` on f/sync-client); the ciphertext is
 * incompressible, so only a smaller plaintext helps. Prints bytes of the pull pages (JSON as the server sends
 * it, plain and gzip) for each packing, as ratios to today's. Does not change the protocol or the client.
 * Usage: node bench/sync-batching.ts [--events=10000]
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { makeAnswerEvents } from '../test/fixtures/answer-events.ts';

const key = randomBytes(32);

/** AES-256-GCM of `plain` under a fresh IV, as the browser seals an item. */
function seal(plain: Buffer) {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  return { iv: iv.toString('base64url'), data: Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]) };
}

/** Pull pages (5,000 items each) of `events` packed `per` to an item, deflated or not; their bytes. */
export function wireBytes(events: unknown[], per: number, deflate: boolean) {
  const items = [];
  for (let i = 0; i < events.length; i += per) {
    const chunk = events.slice(i, i + per);
    const json = Buffer.from(JSON.stringify(per === 1 ? { v: 1, event: chunk[0] } : { v: 2, events: chunk }));
    const { iv, data } = seal(deflate ? deflateRawSync(json, { level: 9 }) : json);
    items.push({
      id: randomBytes(16).toString('base64url'),
      kind: 'event',
      iv,
      data: data.toString('base64url'),
      seq: i + 1,
    });
  }
  let plain = 0;
  let gzip = 0;
  for (let p = 0; p < items.length; p += 5000) {
    const page = Buffer.from(
      JSON.stringify({ items: items.slice(p, p + 5000), cursor: String(p + 5000), more: false }),
    );
    plain += page.length;
    gzip += gzipSync(page).length;
  }
  return { items: items.length, plain, gzip };
}

if (import.meta.filename === process.argv[1]) {
  const n = Number(process.argv.find((a) => a.startsWith('--events='))?.split('=')[1] ?? 10_000);
  const events = makeAnswerEvents(n, Date.UTC(2026, 0, 1));
  const base = wireBytes(events, 1, false);
  console.log(`| events per item | deflate-raw before AES-GCM | items | plain bytes | gzip bytes | gzip / today |`);
  console.log('|---|---|---|---|---|---|');
  for (const per of [1, 10, 50, 100, 1000])
    for (const deflate of [false, true]) {
      const r = wireBytes(events, per, deflate);
      console.log(
        `| ${per} | ${deflate ? 'yes' : 'no'} | ${r.items} | ${r.plain} | ${r.gzip} | ${(r.gzip / base.gzip).toFixed(3)} |`,
      );
    }
}

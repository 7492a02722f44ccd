/**
 * What the lab server's on-the-fly compression costs on a first visit: every text file of the offline precache
 * compressed once, at several Brotli qualities and gzip levels, with the time and bytes of each as a ratio to the
 * quality the server uses (server/static.ts BROTLI_QUALITY). `node bench/static-compress.ts` (needs a built dist/).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as z, gzipSync } from 'node:zlib';
import { BROTLI_QUALITY } from '../server/static.ts';
import { precacheUrls } from '../test/e2e/sw.ts';

const TEXT = /\.(html|js|css|json|svg|webmanifest|txt|xml)$/;

export function benchStaticCompress(dist = 'dist'): { markdown: string } {
  const files = precacheUrls(readFileSync(`${dist}/sw.js`, 'utf8'))
    .map((u) => decodeURIComponent(u))
    .filter((u) => TEXT.test(u))
    .map((u) => readFileSync(`${dist}/${u}`));
  const raw = files.reduce((s, f) => s + f.length, 0);
  const brotli = (q: number) => (b: Buffer) =>
    brotliCompressSync(b, { params: { [z.BROTLI_PARAM_QUALITY]: q, [z.BROTLI_PARAM_SIZE_HINT]: b.length } });
  const codecs: [string, (b: Buffer) => Buffer][] = [
    ...[4, 5, 6, 9, 11].map((q): [string, (b: Buffer) => Buffer] => [`Brotli ${q}`, brotli(q)]),
    ['gzip 6', (b) => gzipSync(b, { level: 6 })],
    ['gzip 9', (b) => gzipSync(b, { level: 9 })],
  ];
  const rows = codecs.map(([name, fn]) => {
    const t = performance.now();
    let out = 0;
    for (const f of files) out += fn(f).length;
    return { name, ms: performance.now() - t, bytes: out };
  });
  const ref = rows.find((r) => r.name === `Brotli ${BROTLI_QUALITY}`)!;
  const markdown = [
    `${files.length} text files of the precache, ${(raw / 1e6).toFixed(2)} MB, each compressed once (the server's first visit).`,
    '',
    '| codec | time | × the server’s | MB out | × the server’s |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name}${r === ref ? ' (server)' : ''} | ${Math.round(r.ms)} ms | ${(r.ms / ref.ms).toFixed(1)} | ${(r.bytes / 1e6).toFixed(3)} | ${(r.bytes / ref.bytes).toFixed(3)} |`,
    ),
  ].join('\n');
  return { markdown };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) console.log(benchStaticCompress().markdown);

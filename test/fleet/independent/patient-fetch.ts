/**
 * A `fetch` for the audit's client over node:http, without undici's own 300 s wait for response headers: Prometheus
 * sends no header until a query is done, so fetch gives up on a query that runs longer than 300 s whatever the
 * client's timeout (and the audit then reports the client's limit, not undici's). The client's AbortSignal still
 * ends a request. As fetch does, it asks for gzip unless the caller names an `accept-encoding` (the audit's
 * `--no-gzip` asks for identity) and unpacks a gzipped answer: the engine then compresses as it would for the audit.
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';

export const patientFetch: typeof fetch = (input, init) =>
  new Promise((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    headers['accept-encoding'] ??= 'gzip';
    const req = request(url, { method: init?.method ?? 'GET', headers, signal: init?.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        let body = Buffer.concat(chunks);
        if (h.get('content-encoding') === 'gzip') {
          try {
            body = gunzipSync(body);
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
            return;
          }
          h.delete('content-encoding');
          h.delete('content-length');
        }
        resolve(new Response(body, { status: res.statusCode ?? 500, headers: h }));
      });
    });
    req.on('error', reject);
    if (typeof init?.body === 'string') req.write(init.body);
    req.end();
  });

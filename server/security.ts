/**
 * The server's guards: the API token, the Host header check (DNS-rebinding defence) and the CORS
 * allow-list. Pure functions, so the rules are testable without a socket.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import os from 'node:os';

/** A fresh random 128-bit token, as 32 hex characters. */
export function newToken(): string {
  return randomBytes(16).toString('hex');
}

/** Compares tokens in constant time (hashing first, so lengths do not leak either). */
export function tokenMatches(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer …`, else from `?token=` (EventSource cannot set headers). */
export function tokenFrom(authorization: string | undefined, query: string | undefined): string | null {
  const m = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization.trim()) : null;
  return m?.[1] ?? query ?? null;
}

/** Whether `host` (a bind address or name) is loopback: localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
}

/** The hostname part of a Host header ("[::1]:8080" → "::1", "localhost:80" → "localhost"). */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/**
 * Builds the Host header check: loopback names always pass; so does the configured host, and,
 * when bound to a wildcard address (0.0.0.0 or ::), this machine's own addresses and hostname.
 */
export function hostChecker(
  configuredHost: string,
  extra: readonly string[] = [],
): (hostHeader: string | undefined) => boolean {
  const allowed = new Set<string>(
    [configuredHost, ...extra].map((h) => hostnameOf(h.includes(':') && !h.startsWith('[') ? `[${h}]` : h)),
  );
  if (configuredHost === '0.0.0.0' || configuredHost === '::') {
    allowed.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces()))
      for (const a of list ?? []) allowed.add(a.address.toLowerCase());
  }
  return (hostHeader) => {
    if (!hostHeader) return false;
    const name = hostnameOf(hostHeader);
    return name !== '' && (isLoopback(name) || allowed.has(name));
  };
}

/** Normalises an --allow-origin value to "scheme://host[:port]"; throws on anything else. */
export function normaliseOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new Error(`--allow-origin "${origin}" is not a URL; use e.g. https://saturate.example`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`--allow-origin "${origin}" must be http(s).`);
  return url.origin;
}

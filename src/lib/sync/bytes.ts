/**
 * Byte helpers for sync: base64url without padding (the wire format's `B64U`, src/protocol/sync.ts) and UTF-8.
 * Pure; no DOM.
 */

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

/**
 * Bytes as base64url without padding.
 * @example toB64u(new Uint8Array([255, 0])) // "_wA"
 */
export function toB64u(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (let c = 0; c < chars; c++) out += B64[(n >> (18 - 6 * c)) & 63];
  }
  return out;
}

/** base64url (padding tolerated) to bytes; throws on a character outside the alphabet. */
export function fromB64u(text: string): Uint8Array<ArrayBuffer> {
  const s = text.replace(/=+$/, '');
  if (s.length % 4 === 1) throw new Error('Not base64url: a length of 4n+1 characters cannot be decoded.');
  const out = new Uint8Array(Math.floor((s.length * 6) / 8));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const c of s) {
    const v = B64_INDEX.get(c);
    if (v === undefined) throw new Error(`Not base64url: "${c}" is outside the alphabet.`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
  }
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A string's UTF-8 bytes. */
export const utf8 = (s: string): Uint8Array<ArrayBuffer> => encoder.encode(s) as Uint8Array<ArrayBuffer>;
/** UTF-8 bytes back to a string (throws on invalid UTF-8). */
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b);

/** `n` random bytes from WebCrypto. */
export function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

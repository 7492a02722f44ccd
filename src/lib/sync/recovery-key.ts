/**
 * The recovery key as the learner sees it: 32 random bytes and a 3-byte CRC-24 checksum (35 bytes, 280 bits), in
 * Crockford base32 (56 characters), shown in 14 groups of 4: `ABCD-EFGH-…`. Parsing forgives spaces, dashes, case,
 * and the letters people mistake for digits (O→0, I and L→1); the checksum turns a typo into "that recovery key
 * has a typo" instead of a wrong-key failure from the server. CRC-24 catches every single wrong character
 * (a 5-bit error) and every swap of two neighbours (a 10-bit burst): a CRC of degree 24 catches all bursts ≤ 24 bits.
 */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));
/** Crockford's aliases: letters read as digits. */
const ALIASES: Record<string, string> = { O: '0', I: '1', L: '1' };
export const RECOVERY_KEY_BYTES = 32;
const CHECK_BYTES = 3;
/** Characters in the key: (32 + 3) bytes × 8 / 5. */
export const RECOVERY_KEY_CHARS = ((RECOVERY_KEY_BYTES + CHECK_BYTES) * 8) / 5;

/** A recovery key the learner typed that cannot be right; `message` says what to do. */
export class RecoveryKeyError extends Error {
  readonly code: 'length' | 'character' | 'typo';
  constructor(code: RecoveryKeyError['code'], message: string) {
    super(message);
    this.name = 'RecoveryKeyError';
    this.code = code;
  }
}

/** CRC-24 (OpenPGP, RFC 4880 §6.1) of `bytes`. */
export function crc24(bytes: Uint8Array): number {
  let crc = 0xb704ce;
  for (const b of bytes) {
    crc ^= b << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/**
 * The text of a 32-byte recovery key, grouped by 4 with dashes.
 * @example formatRecoveryKey(new Uint8Array(32)) // "0000-0000-…-XXXX" (14 groups)
 */
export function formatRecoveryKey(key: Uint8Array): string {
  if (key.length !== RECOVERY_KEY_BYTES) throw new Error(`A recovery key is ${RECOVERY_KEY_BYTES} bytes.`);
  const crc = crc24(key);
  const all = new Uint8Array([...key, (crc >> 16) & 255, (crc >> 8) & 255, crc & 255]);
  let bits = 0;
  let acc = 0;
  let text = '';
  for (const b of all) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      text += ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return text.match(/.{4}/g)!.join('-');
}

/**
 * The 32 bytes of a typed or pasted recovery key. Throws `RecoveryKeyError` with words for the learner.
 * @example parseRecoveryKey(' abcd efgh … ') // Uint8Array(32)
 */
export function parseRecoveryKey(text: string): Uint8Array<ArrayBuffer> {
  const chars = text
    .toUpperCase()
    .replace(/[\s\-_.]/g, '')
    .replace(/[OIL]/g, (c) => ALIASES[c]!);
  const bad = [...chars].find((c) => !INDEX.has(c));
  if (bad !== undefined)
    throw new RecoveryKeyError(
      'character',
      `A recovery key has only digits and letters; "${bad}" is not one of them. Check the key you printed or copied.`,
    );
  if (chars.length !== RECOVERY_KEY_CHARS)
    throw new RecoveryKeyError(
      'length',
      `A recovery key has ${RECOVERY_KEY_CHARS} letters and digits (14 groups of 4); this has ${chars.length}.`,
    );
  const out = new Uint8Array(RECOVERY_KEY_BYTES + CHECK_BYTES);
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const c of chars) {
    acc = (acc << 5) | INDEX.get(c)!;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
    acc &= (1 << bits) - 1;
  }
  const key = out.slice(0, RECOVERY_KEY_BYTES);
  const crc = (out[32]! << 16) | (out[33]! << 8) | out[34]!;
  if (crc24(key) !== crc)
    throw new RecoveryKeyError(
      'typo',
      'That recovery key has a typo: compare each group of 4 with the key you saved (0 and O, 1 and I count as the same).',
    );
  return key;
}

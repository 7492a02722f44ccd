import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { fromB64u, toB64u } from '../../src/lib/sync/bytes.ts';
import {
  crc24,
  formatRecoveryKey,
  parseRecoveryKey,
  RecoveryKeyError,
  RECOVERY_KEY_CHARS,
} from '../../src/lib/sync/recovery-key.ts';
import {
  accountKeys,
  hkdf,
  newSecret,
  prfSalt,
  recoveryAuth,
  unwrapAccountKey,
  wrapAccountKey,
  WrongKeyError,
} from '../../src/lib/sync/keys.ts';
import { SYNC_INFO, WrappedKeySchema } from '../../src/protocol/sync.ts';

const key32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe('base64url', () => {
  test('round-trips any bytes, without padding, in the wire alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (b) => {
        const s = toB64u(b);
        expect(s).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(s).toBe(Buffer.from(b).toString('base64url'));
        expect([...fromB64u(s)]).toEqual([...b]);
      }),
    );
  });
});

describe('recovery key text', () => {
  test('is 14 groups of 4 and reads back to the same 32 bytes', () => {
    fc.assert(
      fc.property(key32, (k) => {
        const text = formatRecoveryKey(k);
        expect(text).toMatch(/^([0-9A-Z]{4}-){13}[0-9A-Z]{4}$/);
        expect([...parseRecoveryKey(text)]).toEqual([...k]);
      }),
    );
    expect(RECOVERY_KEY_CHARS).toBe(56); // (32 + 3) bytes × 8 / 5
  });

  test('forgives spaces, lower case, missing dashes and O/I/L for 0/1', () => {
    const k = newSecret();
    const text = formatRecoveryKey(k);
    const sloppy = ` ${text.toLowerCase().replaceAll('-', ' ').replaceAll('0', 'o').replaceAll('1', 'l')}\n`;
    expect([...parseRecoveryKey(sloppy)]).toEqual([...k]);
  });

  test('any one wrong character is "a typo", never another key', () => {
    fc.assert(
      fc.property(key32, fc.nat(55), fc.integer({ min: 1, max: 31 }), (k, at, delta) => {
        const chars = formatRecoveryKey(k).replaceAll('-', '');
        const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
        const wrong = alphabet[(alphabet.indexOf(chars[at]!) + delta) % 32]!;
        const typed = chars.slice(0, at) + wrong + chars.slice(at + 1);
        expect(() => parseRecoveryKey(typed)).toThrow(/that recovery key has a typo/i);
      }),
    );
  });

  test('two neighbours swapped is "a typo"', () => {
    fc.assert(
      fc.property(key32, fc.nat(54), (k, at) => {
        const chars = formatRecoveryKey(k).replaceAll('-', '');
        fc.pre(chars[at] !== chars[at + 1]);
        const typed = chars.slice(0, at) + chars[at + 1] + chars[at] + chars.slice(at + 2);
        expect(() => parseRecoveryKey(typed)).toThrow(RecoveryKeyError);
      }),
    );
  });

  test('too short and odd characters are named in words', () => {
    expect(() => parseRecoveryKey('ABCD-EFGH')).toThrow(
      'A recovery key has 56 letters and digits (14 groups of 4); this has 8.',
    );
    expect(() => parseRecoveryKey('ABCD-EF#H')).toThrow('"#" is not one of them');
    expect(() => parseRecoveryKey('U'.repeat(56))).toThrow('"U" is not one of them');
  });

  test('CRC-24 matches the OpenPGP check value', () => {
    // RFC 4880's CRC-24 of "123456789" is 0x21CF02.
    expect(crc24(new TextEncoder().encode('123456789'))).toBe(0x21cf02);
  });
});

describe('keys derived as src/protocol/sync.ts says', () => {
  test('recoveryAuth is base64url of HKDF-SHA-256(R, salt empty, "saturate/recovery-auth"), 43 characters', async () => {
    const r = new Uint8Array(32).fill(7);
    const auth = await recoveryAuth(r);
    expect(auth).toHaveLength(43);
    const { hkdfSync } = await import('node:crypto');
    expect(auth).toBe(
      Buffer.from(hkdfSync('sha256', r, new Uint8Array(0), SYNC_INFO.recoveryAuth, 32)).toString('base64url'),
    );
  });

  test('the PRF salt is SHA-256("saturate/prf-v1")', async () => {
    const { createHash } = await import('node:crypto');
    expect(Buffer.from(await prfSalt()).toString('hex')).toBe(
      createHash('sha256').update('saturate/prf-v1').digest('hex'),
    );
  });

  test('the account key wrapped under the recovery key opens with it and only with it', async () => {
    const k = newSecret();
    const r = newSecret();
    const wrapped = await wrapAccountKey(k, r, SYNC_INFO.recoveryWrap);
    expect(WrappedKeySchema.parse(wrapped)).toEqual(wrapped);
    expect([...(await unwrapAccountKey(wrapped, r, SYNC_INFO.recoveryWrap))]).toEqual([...k]);
    await expect(unwrapAccountKey(wrapped, newSecret(), SYNC_INFO.recoveryWrap)).rejects.toThrow(WrongKeyError);
    // The same secret under the PRF's info is another key: the two wrappings never stand in for each other.
    await expect(unwrapAccountKey(wrapped, r, SYNC_INFO.prfWrap)).rejects.toThrow(WrongKeyError);
  });

  test('the device keeps the account key only as non-extractable keys', async () => {
    const keys = await accountKeys(newSecret());
    expect(keys.enc.extractable).toBe(false);
    expect(keys.id.extractable).toBe(false);
    await expect(globalThis.crypto.subtle.exportKey('raw', keys.enc)).rejects.toThrow();
    expect((await hkdf(newSecret(), 'x')).length).toBe(32);
  });
});

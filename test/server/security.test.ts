/** The pure security helpers behind the guards (server/security.ts). */
import { describe, expect, test } from 'vitest';
import { hostChecker, hostnameOf, tokenFrom, tokenMatches } from '../../server/security.ts';

describe('security helpers', () => {
  test('tokens compare exactly; Bearer wins over the query', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('', 'abc')).toBe(false);
    expect(tokenFrom('Bearer xyz', 'q')).toBe('xyz');
    expect(tokenFrom(undefined, 'q')).toBe('q');
  });
  test('Host check accepts loopback names and the configured host only', () => {
    const ok = hostChecker('lab.internal');
    for (const h of ['localhost', 'localhost:8790', '127.0.0.1:1', '127.1.2.3', '[::1]:8790', 'lab.internal:8790'])
      expect(ok(h), h).toBe(true);
    for (const h of ['evil.example', 'localhost.evil.example', '10.0.0.1', '', '[::2]']) expect(ok(h), h).toBe(false);
    expect(ok(undefined)).toBe(false);
    expect(hostnameOf('[::1]:80')).toBe('::1');
  });
});

import { describe, expect, test } from 'vitest';
import { ago, checkServerUrl, statusLine } from '../../src/lib/sync/status-text.ts';

describe('sync status line', () => {
  test('says when and on how many devices', () => {
    const now = Date.parse('2026-12-02T12:00:00Z');
    expect(statusLine({ lastSyncAt: now - 120_000, devices: 3, pending: 0 }, now)).toBe('Synced 2 min ago · 3 devices');
    expect(statusLine({ lastSyncAt: null, devices: null, pending: 4 }, now)).toBe('Not synced yet · 4 to send');
    expect(statusLine({ lastSyncAt: now - 10_000, devices: 1, pending: 0 }, now)).toBe('Synced just now · 1 device');
    expect(ago(now, now - 26 * 3_600_000)).toBe('yesterday');
  });
});

describe('checkServerUrl', () => {
  test('takes https anywhere and http only on this machine', () => {
    expect(checkServerUrl('sync.example.org')).toEqual({ ok: true, url: 'https://sync.example.org' });
    expect(checkServerUrl('https://example.org/sync/')).toEqual({ ok: true, url: 'https://example.org/sync' });
    expect(checkServerUrl('http://localhost:8791')).toEqual({ ok: true, url: 'http://localhost:8791' });
    expect(checkServerUrl('http://example.org')).toEqual({
      ok: false,
      message: 'The sync server must use https:// (http:// only for localhost).',
    });
    expect(checkServerUrl('ftp://x.org')).toMatchObject({ ok: false });
    expect(checkServerUrl('')).toMatchObject({ ok: false, message: expect.stringContaining('Enter the sync server') });
    expect(checkServerUrl('https://u:p@x.org')).toMatchObject({ ok: false });
  });
});

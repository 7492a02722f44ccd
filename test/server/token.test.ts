/** The API token: kept 0600 in the config folder and stable across restarts, rotated by --new-token, or given by scripts. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCli } from '../../server/cli.ts';
import { launch } from '../../server/launch.ts';
import { chooseToken, keptTokenPath } from '../../server/token.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'token-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ XDG_CONFIG_HOME: join(dir, 'config') });
const choose = (o: Partial<Parameters<typeof chooseToken>[0]> = {}) =>
  chooseToken({ flag: null, file: null, env: env(), newToken: false, ...o });

describe('the kept token', () => {
  test('is made once, 0600 in a 0700 folder, and the same on every later start', () => {
    const first = choose();
    expect(first).toMatchObject({ from: 'kept', created: true, path: join(dir, 'config', 'saturate', 'token') });
    expect(first.token).toMatch(/^[0-9a-f]{32}$/);
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'config', 'saturate')).mode & 0o777).toBe(0o700);
    expect(choose()).toEqual({ ...first, created: false });
  });
  test('--new-token replaces it; the file stays 0600', () => {
    const first = choose();
    const rotated = choose({ newToken: true });
    expect(rotated.token).not.toBe(first.token);
    expect(rotated.created).toBe(true);
    expect(readFileSync(rotated.path!, 'utf8').trim()).toBe(rotated.token);
    expect(statSync(rotated.path!).mode & 0o777).toBe(0o600);
    expect(choose().token).toBe(rotated.token);
  });
  test('a kept file others can read is made 0600; a symlink is refused, not followed', () => {
    const path = keptTokenPath(env());
    mkdirSync(join(dir, 'config', 'saturate'), { recursive: true });
    writeFileSync(path, 'k'.repeat(32));
    chmodSync(path, 0o644);
    expect(choose().token).toBe('k'.repeat(32));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    rmSync(path);
    writeFileSync(join(dir, 'elsewhere'), 'e'.repeat(32));
    symlinkSync(join(dir, 'elsewhere'), path);
    expect(() => choose()).toThrow(/is a symlink: the lab server does not follow it/);
  });
  test('without XDG_CONFIG_HOME it lives in ~/.config/saturate/token', () => {
    expect(keptTokenPath({}, '/home/ada')).toBe('/home/ada/.config/saturate/token');
    expect(keptTokenPath({ XDG_CONFIG_HOME: 'relative' }, '/home/ada')).toBe('/home/ada/.config/saturate/token');
  });
});

describe('tokens for scripts', () => {
  test('--token-file and SATURATE_TOKEN win over the kept token; bad ones say what is wrong', () => {
    const file = join(dir, 'tok');
    writeFileSync(file, `${'f'.repeat(40)}\n`);
    expect(choose({ file })).toMatchObject({ token: 'f'.repeat(40), from: 'file' });
    expect(choose({ env: { ...env(), SATURATE_TOKEN: 's'.repeat(20) } })).toMatchObject({ from: 'env' });
    writeFileSync(file, 'short');
    expect(() => choose({ file })).toThrow(/The token in .*tok must be 16–256/);
    expect(() => choose({ file: join(dir, 'missing') })).toThrow(/does not exist/);
    expect(() => choose({ flag: 'x'.repeat(20), newToken: true })).toThrow(/--new-token replaces the kept token/);
  });
  test('the CLI reads SATURATE_TOKEN; a non-loopback bind accepts it or --token-file as its own token', () => {
    expect(parseCli([], { SATURATE_TOKEN: 'e'.repeat(32) }).token).toBe('e'.repeat(32));
    expect(() => parseCli([], { SATURATE_TOKEN: 'bad token' })).toThrow(/\$SATURATE_TOKEN must be 16–256/);
    expect(parseCli(['--host', '0.0.0.0', '--token-file', '/x']).tokenFile).toBe('/x');
    expect(() => parseCli(['--host', '0.0.0.0'])).toThrow(/--token-file FILE or SATURATE_TOKEN/);
    expect(parseCli(['--new-token']).newToken).toBe(true);
  });
});

describe('restarts', () => {
  test('a restart prints the same URL; after --new-token the old token gets "token changed"', async () => {
    const start = async (extra: string[] = []) =>
      launch(
        { ...parseCli(['--port', '0', '--source', 'sim:idle', ...extra]), staticDir: null },
        { print: () => {}, log: () => {}, handleSignals: false, env: env() },
      );
    const a = await start();
    const tokenA = a.lab.token;
    await a.stop();
    const b = await start();
    expect(b.lab.token).toBe(tokenA);
    await b.stop();
    const c = await start(['--new-token']);
    try {
      expect(c.lab.token).not.toBe(tokenA);
      const res = await fetch(`http://127.0.0.1:${c.port}/api/devices?token=${tokenA}`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toMatch(/token changed/);
      expect((await fetch(c.url.replace('/?', '/api/devices?'))).status).toBe(200);
    } finally {
      await c.stop();
    }
  });
});

/**
 * Paths a careless operator may pass: FIFOs, devices and folders as the token, replay or recording file are
 * refused at once with a message (each runs as its own lab server process, so a regression that hangs or
 * swamps fails here instead of hanging the suite), and the kept token's folder is made private.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT } from '../../server/defaults.ts';
import { chooseToken } from '../../server/token.ts';
import { runLab as runLabCli } from './helpers.ts';

let dir: string;
let fifo: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'saturate-files-'));
  fifo = join(dir, 'pipe');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The lab server (on a free port) to its exit, or killed after 15 s (a hang), with its own ~/.config. */
const runLab = (args: string[]) => runLabCli(['--port', '0', ...args], join(dir, 'config'));

describe('files that are not regular files are refused at once', () => {
  test('a FIFO as --token-file', async () => {
    const r = await runLab(['--token-file', fifo]);
    expect(r.code, r.stderr).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/is a FIFO \(named pipe\), not a regular file/);
  });
  test('/dev/zero as --token-file', async () => {
    const r = await runLab(['--token-file', '/dev/zero']);
    expect(r.code, r.stderr).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/\/dev\/zero is a device, not a regular file/);
  });
  test('a FIFO or a folder as --source replay:', async () => {
    const pipe = await runLab(['--source', `replay:${fifo}`]);
    expect(pipe.code, pipe.stderr).toBe(EXIT.SOURCE);
    expect(pipe.stderr).toMatch(/is a FIFO \(named pipe\), not a regular file/);
    const folder = await runLab(['--source', `replay:${dir}`]);
    expect(folder.code, folder.stderr).toBe(EXIT.SOURCE);
    expect(folder.stderr).toMatch(/is a directory, not a regular file/);
  });
  test('a FIFO as --record', async () => {
    const r = await runLab(['--source', 'sim:idle', '--record', fifo]);
    expect(r.code, r.stderr).toBe(EXIT.RECORD);
    expect(r.stderr).toMatch(/not a regular file/);
  });
});

describe('the kept token folder', () => {
  test('an existing folder open to others is made 0700', () => {
    const config = join(dir, 'open-config');
    mkdirSync(join(config, 'saturate'), { recursive: true });
    chmodSync(join(config, 'saturate'), 0o777);
    chooseToken({ flag: null, file: null, env: { XDG_CONFIG_HOME: config }, newToken: false });
    expect(statSync(join(config, 'saturate')).mode & 0o777).toBe(0o700);
  });
  test('a symlinked folder is refused, not followed', () => {
    const config = join(dir, 'linked-config');
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    mkdirSync(config, { recursive: true });
    symlinkSync(join(dir, 'elsewhere'), join(config, 'saturate'));
    expect(() => chooseToken({ flag: null, file: null, env: { XDG_CONFIG_HOME: config }, newToken: false })).toThrow(
      /saturate is a symlink: the lab server keeps its token only in a real folder/,
    );
    expect(spawnSync('ls', [join(dir, 'elsewhere')]).stdout.toString()).toBe(''); // nothing written through it
  });
});

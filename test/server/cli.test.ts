/** Flag parsing, the usage text and the process's exit codes (`node server/bin.mjs`, as `npm run lab` runs it). */
import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { parseCli, USAGE } from '../../server/cli.ts';
import { DEFAULTS, EXIT } from '../../server/defaults.ts';
import { DEFAULT_QUERY_TIMEOUT_S, MAX_QUERY_TIMEOUT_S } from '../../server/fleet/query-timeout.ts';
import { runLab as runLabCli } from './helpers.ts';

const configHome = mkdtempSync(join(tmpdir(), 'cli-config-'));
afterAll(() => rmSync(configHome, { recursive: true, force: true }));

/** The lab server's CLI to its exit, with its own ~/.config. */
const runLab = (args: string[], env: Record<string, string> = {}) => runLabCli(args, configHome, env);

describe('CLI flags', () => {
  test('defaults come from DEFAULTS: loopback, auto, 500 ms, port 8790', () => {
    expect(parseCli([])).toMatchObject({
      host: DEFAULTS.host,
      source: DEFAULTS.source,
      intervalMs: DEFAULTS.intervalMs,
      maxStreams: DEFAULTS.maxStreams,
      token: null,
      port: DEFAULTS.port,
    });
    expect([DEFAULTS.host, DEFAULTS.port, DEFAULTS.intervalMs]).toEqual(['127.0.0.1', 8790, 500]);
  });
  test('--prometheus-query-timeout: seconds for one fleet query, sized for a large fleet by default, checked', () => {
    const prom = ['--source', 'prometheus:http://127.0.0.1:9090'];
    expect(parseCli(prom).prometheus.queryTimeoutS).toBe(DEFAULT_QUERY_TIMEOUT_S);
    expect(DEFAULT_QUERY_TIMEOUT_S).toBeGreaterThanOrEqual(120); // a 7-day window of a large fleet, not 30 s
    expect(parseCli([...prom, '--prometheus-query-timeout', '90']).prometheus.queryTimeoutS).toBe(90);
    for (const bad of ['0', 'abc', '0.5', String(MAX_QUERY_TIMEOUT_S + 1), '1e3'])
      expect(() => parseCli([...prom, '--prometheus-query-timeout', bad])).toThrow(
        new RegExp(`--prometheus-query-timeout must be a number of seconds from 1 to ${MAX_QUERY_TIMEOUT_S}`),
      );
    expect(() => parseCli(['--prometheus-query-timeout', '90'])).toThrow(/goes with --source prometheus:/);
    expect(USAGE).toMatch(/--prometheus-query-timeout S/);
  });
  test('refuses a non-loopback bind without an explicit token, and intervals under 100 ms', () => {
    expect(() => parseCli(['--host', '0.0.0.0'])).toThrow(/a token of your own/);
    expect(parseCli(['--host', '0.0.0.0', '--token', 'a'.repeat(32)]).host).toBe('0.0.0.0');
    expect(() => parseCli(['--interval', '50'])).toThrow(/between 100/);
    expect(() => parseCli(['--token', 'short'])).toThrow(/16–256/);
    expect(() => parseCli(['--allow-origin', 'not a url'])).toThrow(/not a URL/);
    expect(() => parseCli(['--bogus'])).toThrow(/Usage/);
    expect(
      parseCli(['--allow-origin', 'https://a.example/path', '--allow-origin', 'https://b.example']).allowOrigins,
    ).toEqual(['https://a.example', 'https://b.example']);
  });
  test('$PORT sets the port unless --port is given; a bad $PORT names the variable', () => {
    expect(parseCli([], { PORT: '9001' }).port).toBe(9001);
    expect(parseCli(['--port', '0'], { PORT: '9001' }).port).toBe(0);
    expect(parseCli([], { PORT: '' }).port).toBe(DEFAULTS.port);
    expect(() => parseCli([], { PORT: 'http' })).toThrow(/\$PORT needs a whole number/);
  });
  test('the usage text shows the defaults and every exit code', () => {
    expect(USAGE).toContain(`default ${DEFAULTS.port}`);
    expect(USAGE).toContain(`default ${DEFAULTS.intervalMs}, minimum ${DEFAULTS.minIntervalMs}`);
    for (const code of Object.values(EXIT)) expect(USAGE).toMatch(new RegExp(`\\b${code} [a-z]`));
  });
});

describe('exit codes', () => {
  test('a bad flag exits 2 with the usage; a port in use exits 3; a source that cannot start exits 4, a recording 5', async () => {
    const bad = await runLab(['--bogus']);
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.stderr).toMatch(/Usage:/);

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const busy = await runLab(['--port', String(port), '--source', 'sim:idle']);
      expect(busy.code).toBe(EXIT.PORT_IN_USE);
      expect(busy.stderr).toMatch(new RegExp(`Port ${port} is in use: pass --port 0`));
      const busyEnv = await runLab(['--source', 'sim:idle'], { PORT: String(port) });
      expect(busyEnv.code).toBe(EXIT.PORT_IN_USE);
    } finally {
      taken.close();
    }

    const noNvml = await runLab(['--port', '0', '--source', 'nvml'], {
      SATURATE_NVML_LIB: '/nonexistent/libnvidia-ml.so.1',
    });
    expect(noNvml.code).toBe(EXIT.SOURCE);
    expect(noNvml.stderr).toMatch(/NVML library not found/);
    const badScenario = await runLab(['--port', '0', '--source', 'sim:nope']);
    expect(badScenario.code).toBe(EXIT.USAGE);
    const noFolder = await runLab(['--port', '0', '--source', 'sim:idle', '--record', '/nonexistent/run.ndjson']);
    expect(noFolder.code).toBe(EXIT.RECORD);
    expect(noFolder.stderr).toMatch(/Cannot record to \/nonexistent\/run\.ndjson: its folder does not exist/);
  });
});

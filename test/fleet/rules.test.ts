/**
 * The Prometheus rules shipped in deploy/prometheus/, checked and unit-tested by the real promtool.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const DIR = join(import.meta.dirname, '..', '..', 'deploy', 'prometheus');
const promtool = (...args: string[]) => spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });

describe('deploy/prometheus', () => {
  test('promtool check rules: the recording rules and the alert are valid', () => {
    const r = promtool('check', 'rules', 'saturate-rules.yml');
    expect(r.error, 'promtool is missing: apt-get install prometheus').toBeUndefined();
    expect(r.stdout + r.stderr).toContain('SUCCESS: 8 rules found');
    expect(r.status).toBe(0);
  });

  test('promtool test rules: idle, idle but allocated, busy in time only, and the 30-minute alert', () => {
    const r = promtool('test', 'rules', 'saturate-rules.test.yml');
    expect(r.stdout + r.stderr).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  test('promtool check config: the sample prometheus.yml and the rules it loads', () => {
    const r = promtool('check', 'config', 'prometheus.yml');
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});

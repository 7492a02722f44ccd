/**
 * The audit and the lab server's fleet source against a hostile Prometheus (test/fleet/hostile-prometheus.ts):
 * one bad GPU, injected labels, huge, endless and stalled answers, raw error text. Each test is one attack of
 * issue #29 that used to succeed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT, runAudit } from '../../scripts/audit.ts';
import { openPrometheusSource } from '../../server/fleet/source.ts';
import { DEFAULT_QUERY_TIMEOUT_S } from '../../server/fleet/query-timeout.ts';
import { BUSY, fakeGpu, IDLE, startHostilePrometheus, type HostilePrometheus } from './hostile-prometheus.ts';

let fake: HostilePrometheus;
let dir: string;

beforeAll(async () => {
  fake = await startHostilePrometheus('fleet');
  dir = mkdtempSync(join(tmpdir(), 'saturate-hostile-'));
});
afterAll(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function audit(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAudit(
    ['--prometheus', fake.url, '--window', '1h', ...args],
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

interface JsonGpu {
  hostname: string;
  verdict: { kind: string; title: string; evidence: string[] };
  energyKWh: number | null;
}
const gpusOf = (out: string): JsonGpu[] => (JSON.parse(out) as { gpus: JsonGpu[] }).gpus;

/** A healthy fleet: two busy GPUs and an idle one. */
const healthy = () => [fakeGpu(0, BUSY), fakeGpu(1, IDLE), fakeGpu(2, BUSY)];

describe('one bad GPU spoils only itself', () => {
  test('a clock event mask of -1 makes that GPU "can\'t tell" with the reason; the others keep their verdicts', async () => {
    fake.mode = 'fleet';
    fake.gpus = healthy();
    const before = gpusOf((await audit(['--json'])).out).map((g) => [g.hostname, g.verdict.kind]);
    fake.gpus = [...healthy(), fakeGpu(3, { ...BUSY, DCGM_FI_DEV_CLOCKS_EVENT_REASONS: -1 })];
    const r = await audit(['--json']);
    expect(r.code, r.err).toBe(EXIT.ok);
    const gpus = gpusOf(r.out);
    expect(gpus.slice(0, 3).map((g) => [g.hostname, g.verdict.kind])).toEqual(before);
    expect(gpus[3]!.verdict.kind).toBe('cant-tell');
    expect(gpus[3]!.verdict.evidence.join(' ')).toMatch(/DCGM_FI_DEV_CLOCKS_EVENT_REASONS = -1: a clock event mask/);
  });

  test('DCGM blank sentinels (float 2^47, 32-bit 0x7ffffff0…) are no reading, with the reason', async () => {
    fake.mode = 'fleet';
    fake.gpus = [
      fakeGpu(0, { ...BUSY, DCGM_FI_PROF_SM_ACTIVE: 2 ** 47, DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: 2 ** 47 + 2 }),
      fakeGpu(1, { ...BUSY, DCGM_FI_DEV_GPU_UTIL: 0x7ffffff2 }),
      fakeGpu(2, BUSY),
    ];
    const r = await audit(['--json']);
    expect(r.code, r.err).toBe(EXIT.ok);
    const [floatBlank, intBlank, fine] = gpusOf(r.out);
    // Read as numbers they made SM activity 14,073,748,835,532,800 % and "Healthy: compute-bound".
    expect(JSON.stringify(floatBlank)).not.toMatch(/14073748835532800|14,073,748/);
    expect(floatBlank!.verdict.kind).not.toBe('compute-bound'); // nothing left says how much of the GPU is used
    expect(intBlank!.verdict.kind).toBe('cant-tell');
    expect(intBlank!.verdict.evidence.join(' ')).toMatch(/32-bit sentinel 0x7ffffff2: "not supported"/);
    expect(fine!.verdict.kind).toBe('compute-bound');
  });

  test('the lab server keeps every other GPU live, and /api/fleet still answers', async () => {
    fake.mode = 'fleet';
    fake.gpus = [
      fakeGpu(0, { ...BUSY, DCGM_FI_DEV_CLOCKS_EVENT_REASONS: -1 }),
      fakeGpu(1, { ...BUSY, DCGM_FI_PROF_SM_ACTIVE: 2 ** 47 }),
      fakeGpu(2, BUSY),
    ];
    const source = await openPrometheusSource({ url: fake.url, refreshS: 15 });
    try {
      const [mask, sm, fine] = source.read(Date.now()).gpus;
      expect([mask!.error, sm!.error, fine!.error]).toEqual([null, null, null]);
      expect(mask!.clockEventReasons).toBeNull();
      expect(mask!.nullReasons['clockEventReasons']).toMatch(/= -1/);
      expect(sm!.smActivePct).toBeNull();
      expect(sm!.nullReasons['smActivePct']).toMatch(/float sentinel 2\^47/);
      expect(fine!.clockEventReasons).toEqual([]);
      expect(fine!.smActivePct).toBeCloseTo(90);
      const report = await source.fleet(3600, null);
      expect(report.gpus.map((g) => g.verdict.kind)).toEqual(['cant-tell', 'compute-bound', 'compute-bound']);
    } finally {
      source.close();
    }
  });

  test('NaN and Inf in the energy counter leave that GPU\'s energy unknown, never "NaN kWh"', async () => {
    fake.mode = 'fleet';
    fake.gpus = [fakeGpu(0, { ...BUSY, energy: 'NaN' }), fakeGpu(1, { ...BUSY, energy: '+Inf' }), fakeGpu(2, BUSY)];
    const md = await audit([]);
    expect(md.code, md.err).toBe(EXIT.ok);
    expect(md.out).not.toMatch(/NaN|Infinity/);
    expect(md.out).toMatch(/Energy over the window: 1 kWh/); // 620 W for an hour: GPU 2's alone
    const gpus = gpusOf((await audit(['--json'])).out);
    expect(gpus.map((g) => g.energyKWh)).toEqual([null, null, 0.62]);
  });
});

describe('reports are data, not markup', () => {
  test('label values cannot add HTML, links, headings, columns or terminal escapes to the Markdown', async () => {
    fake.mode = 'fleet';
    fake.gpus = [
      fakeGpu(0, IDLE, { Hostname: '<img src=x onerror=alert(1)>', pod: '<script>alert(1)</script>' }),
      fakeGpu(1, IDLE, {
        Hostname: 'gpu-b\n# Fake heading\n<svg onload=alert(1)>',
        namespace: '[x](javascript:alert(1))',
      }),
      fakeGpu(2, IDLE, { modelName: 'H100 | extra | columns', pod: '\u001b[2J\u001b]0;pwned\u0007evil\u202eslo' }),
    ];
    const r = await audit([]);
    expect(r.code, r.err).toBe(EXIT.ok);
    expect(r.out).not.toMatch(/<img|<script|<svg|\]\(javascript:/i);
    expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
    expect(r.out.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      expect.stringMatching(/^# GPU waste audit/),
      '## GPUs, most wasteful first',
    ]);
    const rows = r.out.split('\n').filter((l) => /^\| .* \| 0 \|/.test(l));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.match(/(?<!\\)\|/g), row).toHaveLength(8); // 7 columns, no more
    expect(r.out).toContain('&lt;img src=x onerror=alert\\(1\\)&gt;'); // still readable as text
  });

  test("Prometheus's error text reaches the terminal cut short and without escape codes", async () => {
    fake.mode = 'hostile-error';
    const r = await audit([]);
    expect(r.code).toBe(EXIT.usage); // Prometheus said the query is bad
    expect(r.err).toMatch(/parse error/);
    expect(r.err).not.toMatch(/[\u001b\u0007\u202e\r]/);
    expect(r.err.length).toBeLessThan(1500);
  });
});

describe('what held keeps holding', () => {
  test('a web page instead of Prometheus fails cleanly, exit 2, saying what to check', async () => {
    fake.mode = 'html';
    const r = await audit([]);
    expect(r.code).toBe(EXIT.prometheus);
    expect(r.err).toMatch(/without Prometheus's JSON: is this Prometheus's address\?/);
  });

  test('a redirect is refused, so no credential is forwarded', async () => {
    fake.mode = 'redirect';
    const token = join(dir, 'redirect-token');
    writeFileSync(token, 'a-token-for-prometheus\n');
    const r = await audit(['--prometheus-token-file', token]);
    expect(r.code).toBe(EXIT.prometheus);
    expect(fake.requests).not.toContain('/stolen');
  });
});

describe('bounded', () => {
  test('an answer over the size cap is refused with what to do, before it is all read', async () => {
    fake.mode = 'huge-body';
    const r = await audit(['--max-response-mb', '2']);
    expect(r.code).toBe(EXIT.tooSlow);
    expect(r.err).toMatch(
      /Prometheus answered more than 2 MB for query .*; narrow --selector or use the recording rules/s,
    );
  });

  test('100,000 series: a refusal that names the selector and the recording rules, not a crash', async () => {
    fake.mode = 'many-series';
    fake.seriesCount = 100_000;
    const r = await audit(['--selector', '{cluster="big"}']);
    expect(r.code).toBe(EXIT.tooSlow);
    expect(r.err).toMatch(/more than 50,000 series/);
    expect(r.err).toMatch(/recording rules/);
    expect(r.err).toMatch(/selector: \{cluster="big"\}/);
  });

  test("the lab server's refusal names its own flag (--prometheus-selector), not the audit's", async () => {
    fake.mode = 'huge-body';
    const refused = await openPrometheusSource({ url: fake.url, refreshS: 15, maxResponseBytes: 2 * 1024 * 1024 }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/narrow --prometheus-selector or use the recording rules/);
  });

  test('a timeout while the body arrives is a timeout (exit 4), not "without Prometheus\'s JSON"', async () => {
    fake.mode = 'stall-mid-body';
    const r = await audit(['--query-timeout', '1']);
    expect(r.err).toMatch(
      /Prometheus took longer than 1 s for query .*; try --query-timeout or the recording rules in deploy\/prometheus\//,
    );
    expect(r.err).not.toMatch(/without Prometheus's JSON/);
    expect(r.code).toBe(EXIT.tooSlow);
  });

  test('--query-timeout takes seconds from 1 to the most fetch honours; anything else is a usage error (exit 1)', async () => {
    for (const bad of ['0', 'abc', '301', '1e3']) {
      const r = await audit(['--query-timeout', bad]);
      expect(r.code).toBe(EXIT.usage);
      expect(r.err).toMatch(/--query-timeout must be a number of seconds from 1 to 300/);
    }
    let help = '';
    await runAudit(['--help'], (s) => (help += s));
    expect(help).toMatch(new RegExp(`--query-timeout <seconds> .*\\(default\\s+${DEFAULT_QUERY_TIMEOUT_S}`, 's'));
  });

  test('the lab server runs at most one fleet refresh at a time', async () => {
    fake.mode = 'fleet';
    fake.gpus = healthy();
    const source = await openPrometheusSource({ url: fake.url, refreshS: 15, timeoutMs: 5000 });
    try {
      fake.mode = 'stall-mid-body';
      const asked = fake.requests.length;
      await Promise.all([source.refresh(), source.refresh(), source.refresh()]);
      // One refresh's first request: the GPU hosts (the list stalls: no batch follows; the newest scrape reads no host
      // CPU). Three refreshes at once would be three.
      expect(fake.requests.length - asked).toBe(1);
      expect(source.read(Date.now()).gpus[0]!.error).toMatch(
        /took longer than 5 s .*; try --prometheus-query-timeout or the recording rules in deploy\/prometheus\//s,
      );
    } finally {
      source.close();
    }
  });

  test("/api/fleet's report cache keeps a few windows, not every window ever asked for", async () => {
    fake.mode = 'fleet';
    fake.gpus = healthy();
    const source = await openPrometheusSource({ url: fake.url, refreshS: 15 });
    try {
      for (let minutes = 60; minutes < 72; minutes++) await source.fleet(minutes * 60, null);
      expect(source.cachedWindows).toBeLessThanOrEqual(4);
      const asked = fake.requests.length;
      await source.fleet(71 * 60, null); // the newest is still there
      expect(fake.requests.length).toBe(asked);
    } finally {
      source.close();
    }
  });
});

describe('one rule for exit codes: local mistakes are 1 and cost no query', () => {
  const file = (name: string, content: string) => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  test('a missing token file exits 1, like a missing basic-auth file', async () => {
    fake.mode = 'fleet';
    const asked = fake.requests.length;
    const token = await audit(['--prometheus-token-file', join(dir, 'no-such-token')]);
    const basic = await audit(['--prometheus-basic-auth-file', join(dir, 'no-such-auth')]);
    expect([token.code, basic.code]).toEqual([EXIT.usage, EXIT.usage]);
    expect(token.err).toMatch(/--prometheus-token-file .*no-such-token does not exist/);
    expect(fake.requests.length).toBe(asked);
  });

  test('an empty basic-auth file is refused, not sent as no credentials', async () => {
    const r = await audit(['--prometheus-basic-auth-file', file('empty-auth', '\n')]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/is empty: put user:password in it/);
  });

  test('/dev/zero as a credential file is refused at once', async () => {
    const r = await audit(['--prometheus-token-file', '/dev/zero']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/\/dev\/zero is a device, not a regular file/);
  });

  test('--out naming a folder or a missing folder exits 1 before any query', async () => {
    fake.mode = 'fleet';
    fake.gpus = healthy();
    const asked = fake.requests.length;
    const folder = await audit(['--out', dir]);
    const missing = await audit(['--out', join(dir, 'nope', 'report.md')]);
    expect([folder.code, missing.code]).toEqual([EXIT.usage, EXIT.usage]);
    expect(folder.err).toMatch(/is a directory: give a file name/);
    expect(missing.err).toMatch(/does not exist; create it first/);
    expect(fake.requests.length).toBe(asked);
  });
});

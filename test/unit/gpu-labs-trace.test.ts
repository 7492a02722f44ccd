/**
 * `npm run check:gpu-labs` without a GPU: it says it needs one; and the trace half it runs after each workload,
 * checked on real traces (HTA's, test/fixtures/trace) standing in for a workload's `--profile` output.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { NEEDS_GPU, traceLines } from '../../scripts/gpu-labs-trace.ts';

const fixture = (name: string): string => join(process.cwd(), 'test/fixtures/trace', name);

/** A folder holding `file` under the name a workload's --profile gives its trace. */
function profileDir(file: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-labs-'));
  copyFileSync(fixture(file), join(dir, 'dataloader-w0.pt.trace.json.gz'));
  return dir;
}

describe('npm run check:gpu-labs', { timeout: 60_000 }, () => {
  test('without a GPU, says that it needs one and that nothing was recorded, and exits 0', () => {
    const out = mkdtempSync(join(tmpdir(), 'gpu-labs-out-'));
    const r = spawnSync(process.execPath, ['scripts/gpu-labs.ts', out], {
      encoding: 'utf8',
      env: { ...process.env, SATURATE_NVML_LIB: join(out, 'no-libnvidia-ml.so.1') },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(NEEDS_GPU);
    expect(NEEDS_GPU).toMatch(/needs an NVIDIA GPU.*Nothing was recorded or analysed here/);
  });

  test("prints the trace CLI's verdict and evidence for the trace a workload wrote", () => {
    const lines = traceLines(profileDir('hta-sampled-rank-0.json.gz'));
    expect(lines[0]).toMatch(/dataloader-w0\.pt\.trace\.json\.gz: small-kernels \(high\) "Host-bound/);
    expect(lines.join('\n')).toMatch(/- GPU idle 53\.6% of 600 ms/);
  });

  test('says so when the trace holds no GPU work (the idle lab) or when no trace was written', () => {
    expect(traceLines(profileDir('hta-cpu-only.json.gz'))[0]).toMatch(/no GPU activity in the trace \(exit 3\)/);
    expect(traceLines(mkdtempSync(join(tmpdir(), 'gpu-labs-empty-')))[0]).toMatch(/trace: none written to/);
  });
});

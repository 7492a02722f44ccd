/**
 * NVIDIA's real libnvidia-ml and nvml.h, fetched by scripts/fetch-nvml.sh into .nvml/ (git-ignored,
 * cached between runs). No GPU driver here: nvmlInit_v2 returns 9. When the download is impossible
 * (offline), these tests are skipped with the reason printed.
 */
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openNvml } from '../../server/nvml/binding.ts';
import { NvmlError } from '../../server/nvml/errors.ts';
import { MEMORY_V2_VERSION, OFF, SIZE } from '../../server/nvml/structs.ts';
import { resolveSource } from '../../server/sources/index.ts';
import { haveGcc } from '../fixtures/nvml-stub/build.ts';

const root = new URL('../../', import.meta.url).pathname;

function fetchNvml(): { lib: string; header: string } | { skip: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { skip: 'the Debian package fetched here is for linux x64 only' };
  try {
    const out = execFileSync(join(root, 'scripts/fetch-nvml.sh'), [join(root, '.nvml')], {
      encoding: 'utf8',
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lib = out.trim().split('\n').at(-1) ?? '';
    const header = join(root, '.nvml/usr/include/nvml.h');
    if (!existsSync(lib)) return { skip: `fetch-nvml printed ${lib}, which does not exist` };
    return { lib, header };
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return {
      skip: `cannot download NVIDIA's libnvidia-ml (offline?): ${(err.stderr ?? err.message).trim().split('\n')[0]}`,
    };
  }
}

const fetched = fetchNvml();
if ('skip' in fetched) console.warn(`SKIPPED real-NVML tests: ${fetched.skip}`);

describe("NVIDIA's real libnvidia-ml without a driver", () => {
  test('nvmlInit_v2 fails with Driver Not Loaded as an NvmlError', (ctx) => {
    if ('skip' in fetched) return ctx.skip(fetched.skip);
    try {
      openNvml({ libraryPath: fetched.lib });
      expect.unreachable('nvmlInit_v2 should fail without a driver');
    } catch (e) {
      expect(e).toBeInstanceOf(NvmlError);
      expect(e).toMatchObject({ code: 9, nvmlName: 'DRIVER_NOT_LOADED', fn: 'nvmlInit_v2' });
      expect((e as Error).message).toContain('Driver Not Loaded');
    }
  });

  test('auto reports "Driver Not Loaded" and falls back to simulation, flagged simulated', async (ctx) => {
    if ('skip' in fetched) return ctx.skip(fetched.skip);
    const source = await resolveSource('auto', { libraryPath: fetched.lib, log: () => {} });
    try {
      expect(source.simulated).toBe(true);
      expect(source.id).toMatch(/^sim:/);
      expect(source.reason).toContain('Driver Not Loaded');
      expect(source.reason).toContain('NVML 9');
      const reading = source.read(Date.parse('2026-03-29T01:30:00+01:00'));
      expect(reading.gpus.length).toBeGreaterThan(0);
    } finally {
      source.close();
    }
  });

  test('struct layouts match the real nvml.h', (ctx) => {
    if ('skip' in fetched) return ctx.skip(fetched.skip);
    if (!haveGcc()) return ctx.skip('gcc not found');
    const dir = mkdtempSync(join(tmpdir(), 'nvml-layout-'));
    try {
      const src = join(dir, 'layout.c');
      writeFileSync(
        src,
        `#include <stdio.h>
#include <stddef.h>
#include "nvml.h"
int main(void) {
  printf("{\\"utilization\\":%zu,\\"memory\\":%zu,\\"memoryV2\\":%zu,\\"processInfo\\":%zu,\\"processInfoV1\\":%zu,", sizeof(nvmlUtilization_t), sizeof(nvmlMemory_t), sizeof(nvmlMemory_v2_t), sizeof(nvmlProcessInfo_t), sizeof(nvmlProcessInfo_v1_t));
  printf("\\"gpmSupport\\":%zu,\\"gpmMetric\\":%zu,\\"memV2Version\\":%u,", sizeof(nvmlGpmSupport_t), sizeof(nvmlGpmMetric_t), (unsigned)nvmlMemory_v2);
  printf("\\"memV2Reserved\\":%zu,\\"memV2Used\\":%zu,\\"memUsed\\":%zu,\\"procMem\\":%zu,", offsetof(nvmlMemory_v2_t, reserved), offsetof(nvmlMemory_v2_t, used), offsetof(nvmlMemory_t, used), offsetof(nvmlProcessInfo_t, usedGpuMemory));
  printf("\\"gpmSample2\\":%zu,\\"gpmMetrics\\":%zu,\\"metricValue\\":%zu}\\n", offsetof(nvmlGpmMetricsGet_t, sample2), offsetof(nvmlGpmMetricsGet_t, metrics), offsetof(nvmlGpmMetric_t, value));
  return 0;
}
`,
      );
      const exe = join(dir, 'layout');
      execFileSync('gcc', ['-I', join(root, '.nvml/usr/include'), '-o', exe, src], { stdio: 'pipe' });
      const c = JSON.parse(execFileSync(exe, { encoding: 'utf8' })) as Record<string, number>;
      expect({ ...SIZE }).toEqual({
        utilization: c['utilization'],
        memory: c['memory'],
        memoryV2: c['memoryV2'],
        processInfo: c['processInfo'],
        processInfoV1: c['processInfoV1'],
        gpmSupport: c['gpmSupport'],
        gpmMetric: c['gpmMetric'],
      });
      expect(MEMORY_V2_VERSION).toBe(c['memV2Version']);
      expect([
        OFF.memV2Reserved,
        OFF.memV2Used,
        OFF.memUsed,
        OFF.procMem,
        OFF.gpmSample2,
        OFF.gpmMetrics,
        OFF.metricValue,
      ]).toEqual([
        c['memV2Reserved'],
        c['memV2Used'],
        c['memUsed'],
        c['procMem'],
        c['gpmSample2'],
        c['gpmMetrics'],
        c['metricValue'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

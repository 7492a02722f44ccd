/**
 * Real-GPU cross-check (`npm run check:gpu`): reads every GPU through the lab's NVML binding and
 * through `nvidia-smi --query-gpu` at the same moment and compares them field by field, then prints
 * GPM metrics (SM activity, occupancy, tensor, DRAM) while a matmul load runs (PyTorch, when the
 * machine has it) beside `nvidia-smi dmon --gpm-metrics 2,3,5,10`.
 * Imports only Node built-ins, koffi and the repo's server files, so it runs from ../shared/tools/gpu-kit.
 * With no NVIDIA GPU or driver it says so and exits 0. Exits 1 when a reading disagrees beyond tolerance.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { GpuSample } from '../src/protocol/metrics.ts';
import type { NvmlSource } from '../server/sources/nvml.ts';
import { openGpuOrSayWhy } from './gpu-source.ts';

const MIB = 1024 * 1024;
const QUERY = [
  'index',
  'uuid',
  'name',
  'utilization.gpu',
  'utilization.memory',
  'memory.total',
  'memory.used',
  'power.draw',
  'enforced.power.limit',
  'temperature.gpu',
  'clocks.sm',
  'clocks.max.sm',
  'clocks.mem',
];

function smi(args: string[], timeoutMs = 20_000): string | null {
  const r = spawnSync('nvidia-smi', args, { encoding: 'utf8', timeout: timeoutMs });
  return r.status === 0 ? r.stdout : null;
}

const num = (s: string | undefined): number | null =>
  s === undefined || /N\/A|Not Supported|\[/.test(s) ? null : Number(s);

interface Check {
  field: string;
  ours: string;
  smi: string;
  ok: boolean;
}

function compare(g: GpuSample, row: string[]): Check[] {
  const out: Check[] = [];
  const add = (
    field: string,
    ours: number | string | null,
    theirs: number | string | null,
    tol: number | 'exact',
  ): void => {
    const ok =
      ours === null || theirs === null
        ? ours === theirs || theirs === null // NVML null where nvidia-smi says N/A is right
        : tol === 'exact'
          ? String(ours) === String(theirs)
          : Math.abs(Number(ours) - Number(theirs)) <= tol;
    out.push({ field, ours: String(ours), smi: String(theirs), ok });
  };
  add('uuid', g.uuid, row[1] ?? null, 'exact');
  add('name', g.name, row[2] ?? null, 'exact');
  add('utilization.gpu %', g.gpuUtilPct, num(row[3]), 20);
  add('utilization.memory %', g.memUtilPct, num(row[4]), 20);
  add('memory.total MiB', g.memTotalBytes === null ? null : Math.round(g.memTotalBytes / MIB), num(row[5]), 1);
  add(
    'memory.used MiB',
    g.memUsedBytes === null ? null : Math.round(g.memUsedBytes / MIB),
    num(row[6]),
    Math.max(64, (num(row[5]) ?? 0) * 0.01),
  );
  add('power.draw W', g.powerWatts, num(row[7]), 25);
  add('enforced.power.limit W', g.powerLimitWatts, num(row[8]), 1);
  add('temperature.gpu °C', g.temperatureC, num(row[9]), 3);
  add('clocks.sm MHz', g.smClockMhz, num(row[10]), 150);
  add('clocks.max.sm MHz', g.smClockMaxMhz, num(row[11]), 1);
  add('clocks.mem MHz', g.memClockMhz, num(row[12]), 50);
  return out;
}

/** Starts a matmul load on every GPU with PyTorch, or returns null when PyTorch is not there. */
function startLoad(seconds: number): ReturnType<typeof spawn> | null {
  const py = spawnSync('python3', ['-c', 'import torch; assert torch.cuda.is_available()'], {
    stdio: 'ignore',
    timeout: 60_000,
  });
  if (py.status !== 0) return null;
  const code = `import torch, time
xs = [torch.randn(8192, 8192, device=f"cuda:{i}", dtype=torch.bfloat16) for i in range(torch.cuda.device_count())]
end = time.time() + ${seconds}
while time.time() < end:
    for x in xs: y = x @ x
    torch.cuda.synchronize()`;
  return spawn('python3', ['-c', code], { stdio: 'ignore' });
}

function gpmRow(g: GpuSample): string {
  const f = (v: number | null): string => (v === null ? 'null' : v.toFixed(1)).padStart(6);
  return `GPU ${g.index}: util ${String(g.gpuUtilPct).padStart(3)}%  smActive ${f(g.smActivePct)}  smOcc ${f(g.smOccupancyPct)}  tensor ${f(g.tensorActivePct)}  dram ${f(g.dramActivePct)}  fp16 ${f(g.fp16ActivePct)}  fp32 ${f(g.fp32ActivePct)}  power ${g.powerWatts} W${g.smActivePct === null ? `  (${g.nullReasons['smActivePct'] ?? ''})` : ''}`;
}

/** Median of `n` timed calls of `fn`, in µs. */
function medianUs(fn: () => unknown, n = 25): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    try {
      fn();
    } catch {
      // an unsupported query still costs its call; the table says which ones failed elsewhere
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)] ?? Number.NaN;
}

/**
 * What each NVML query costs on this driver (GPU 0), and one whole sample: the numbers that decide
 * which queries can run on every tick. Some drivers take milliseconds for a few of them.
 */
function printQueryCosts(source: NvmlSource): void {
  const nvml = source.nvml;
  const h = nvml.handle(0);
  const rows: [string, () => unknown][] = [
    ['utilization', () => nvml.utilization(h)],
    ['memory', () => nvml.memory(h)],
    ['powerWatts', () => nvml.powerWatts(h)],
    ['powerLimitWatts (1 Hz)', () => nvml.powerLimitWatts(h)],
    ['temperatureC', () => nvml.temperatureC(h)],
    ['clockMhz SM', () => nvml.clockMhz(h, 1)],
    ['clockMhz MEM', () => nvml.clockMhz(h, 2)],
    ['pcieBytesPerSec TX', () => nvml.pcieBytesPerSec(h, 0)],
    ['pcieBytesPerSec RX', () => nvml.pcieBytesPerSec(h, 1)],
    ['clockEventReasons', () => nvml.clockEventReasons(h)],
    ['processes (1 Hz)', () => nvml.processes(h)],
  ];
  console.log('\nNVML query cost on GPU 0 (median of 25 calls):');
  for (const [name, fn] of rows) console.log(`  ${name.padEnd(24)} ${medianUs(fn).toFixed(1).padStart(10)} µs`);
  let t = Date.now();
  console.log(
    `  ${'one sample, all GPUs'.padEnd(24)} ${medianUs(() => source.read((t += 1000)), 11)
      .toFixed(1)
      .padStart(10)} µs (slow queries included)`,
  );
}

async function main(): Promise<number> {
  const source = openGpuOrSayWhy();
  if (source === null) return 0;
  try {
    const devices = source.devices();
    console.log(
      `NVML ${source.nvml.libraryPath}, driver ${source.driverVersion}, ${devices.length} GPU(s); symbols: ${JSON.stringify(source.nvml.symbols)}`,
    );
    if (devices.length === 0) return 0;
    source.read(Date.now());
    await new Promise((r) => setTimeout(r, 500));
    const ours = source.read(Date.now());
    const table = smi([`--query-gpu=${QUERY.join(',')}`, '--format=csv,noheader,nounits']);
    let failures = 0;
    if (table === null) console.log('nvidia-smi not found or failed: skipping the cross-check.');
    else {
      const rows = table
        .trim()
        .split('\n')
        .map((l) => l.split(',').map((c) => c.trim()));
      for (const g of ours.gpus) {
        const row = rows.find((r) => r[1] === g.uuid) ?? rows[g.index] ?? [];
        console.log(`\nGPU ${g.index} ${g.name}: binding vs nvidia-smi`);
        for (const c of compare(g, row)) {
          if (!c.ok) failures++;
          console.log(`  ${c.ok ? 'ok  ' : 'DIFF'} ${c.field.padEnd(24)} ${c.ours.padStart(44)}  ${c.smi}`);
        }
        console.log(
          `  clock event reasons: ${JSON.stringify(g.clockEventReasons)}; processes: ${JSON.stringify(g.processes)}; pcie tx/rx B/s: ${g.pcieTxBytesPerSec}/${g.pcieRxBytesPerSec}`,
        );
      }
    }
    printQueryCosts(source);
    console.log('\nGPM at idle:');
    for (const g of ours.gpus) console.log(`  ${gpmRow(g)}`);
    const load = startLoad(16);
    if (!load) console.log('\nNo PyTorch with CUDA here: no matmul load, so GPM is shown at idle only.');
    else {
      console.log('\nGPM under a bf16 8192×8192 matmul load (PyTorch), every 500 ms:');
      await new Promise((r) => setTimeout(r, 4000)); // let the load start and clocks settle
      const dmon = spawnSync('nvidia-smi', ['dmon', '--gpm-metrics', '2,3,5,10', '-c', '3'], {
        encoding: 'utf8',
        timeout: 15_000,
      });
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 500));
        for (const g of source.read(Date.now()).gpus) console.log(`  ${gpmRow(g)}`);
      }
      console.log(
        `\nnvidia-smi dmon --gpm-metrics 2,3,5,10 (smutil, smocc, mmaact, dram) during the same load:\n${dmon.stdout || dmon.stderr || '(no output)'}`,
      );
      load.kill('SIGTERM');
    }
    if (table === null) console.log('\nNo nvidia-smi here: the readings above were not cross-checked.');
    else
      console.log(
        failures === 0
          ? '\nAll readings agree with nvidia-smi.'
          : `\n${failures} reading(s) differ beyond tolerance (see DIFF lines).`,
      );
    return failures === 0 ? 0 : 1;
  } finally {
    source.close();
  }
}

process.exitCode = await main();

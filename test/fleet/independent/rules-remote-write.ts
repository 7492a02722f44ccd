/**
 * The independent cluster as the recording rules hold it (rules-import.ts hostRules), with raw scrapes for the last
 * RAW_TAIL_S seconds (write.ts), into a real Prometheus through its remote-write receiver (remote-write.ts): the
 * same points bench/fleet-week.ts imports into VictoriaMetrics, at sizes promtool cannot backfill here.
 *
 * Prometheus's head takes no sample older than an hour before the newest it holds, so the fleet is sent an hour at a
 * time, every host's points of that hour before the next hour's: each request holds the hour of a batch of hosts.
 */
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PlannedHost } from './plan.ts';
import { encodeLabels, remoteWrite, WriteRequest } from './remote-write.ts';
import { hostRules, importThroughRules, labelObject, RAW_TAIL_S, ruleValue, type RulesImport } from './rules-import.ts';
import { clusterWriter } from './write.ts';
import { startEngine, type FleetEngine } from '../prometheus-harness.ts';
import type { RunningEngine } from '../victoria-metrics-harness.ts';

const FIVE_S = 300;
/** The hour Prometheus's head allows behind its newest sample, in five minutes. */
const SLICE_FIVES = 12;
/** Hosts a request: an hour of 64 hosts is about 6 MB. */
const HOSTS_PER_REQUEST = 64;

export interface TextSeries {
  labels: Record<string, string>;
  t: number[];
  v: number[];
}

/**
 * Raw scrapes (write.ts's Prometheus text, ms timestamps) in `file` as series, labels and points in time order, one
 * at a time as each ends: write.ts writes a series' scrapes together, and a fleet's file is larger than one string.
 */
export function* textSeries(file: string, chunkBytes = 16 << 20): Generator<TextSeries> {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(chunkBytes);
  let key = '';
  let series: TextSeries | null = null;
  let rest = '';
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      const text = rest + buf.toString('latin1', 0, n);
      const end = n === 0 ? text.length : text.lastIndexOf('\n') + 1;
      rest = text.slice(end);
      for (const row of text.slice(0, end).split('\n')) {
        if (!row || row.startsWith('#')) continue;
        // Label values hold spaces (modelName): the value and the time are the last two fields.
        const tAt = row.lastIndexOf(' ');
        const vAt = row.lastIndexOf(' ', tAt - 1);
        if (row.slice(0, vAt) !== key) {
          if (series) yield series;
          key = row.slice(0, vAt);
          const brace = key.indexOf('{');
          series = { labels: { ...labelObject(key.slice(brace)), __name__: key.slice(0, brace) }, t: [], v: [] };
        }
        series!.t.push(Number(row.slice(tAt + 1)));
        series!.v.push(Number(row.slice(vAt + 1, tAt)));
      }
      if (n === 0) break;
    }
    if (series) yield series;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `hosts` over (startS, endS] (scrapes every `stepS`) into the Prometheus at `url` as the audit reads them
 * through the rules: the window at the rules' points, then the raw scrapes from one scrape after `endS - RAW_TAIL_S`
 * (the scrape at that instant is the rules' last node-gauge point, and Prometheus refuses a second sample at one time).
 */
export async function remoteWriteThroughRules(
  url: string,
  hosts: readonly PlannedHost[],
  startS: number,
  endS: number,
  stepS: number,
  workDir: string,
  log: (s: string) => void = () => {},
): Promise<RulesImport & { rawSamples: number }> {
  const t0 = performance.now();
  const fives = (endS - startS) / FIVE_S;
  const rules = hosts.map((h) => hostRules(h, startS, endS, stepS, RAW_TAIL_S));
  const labels = rules.map((r) => r.series.map(encodeLabels));
  // A series' points in the slice being written, reused from host to host.
  const most = Math.max(...rules.map((r) => r.series.length));
  const times = Array.from({ length: most }, () => new Float64Array(SLICE_FIVES * (FIVE_S / stepS)));
  const values = Array.from({ length: most }, () => new Float64Array(SLICE_FIVES * (FIVE_S / stepS)));
  const counts = new Int32Array(most);
  let samples = 0;
  let generateMs = 0;
  let sending: Promise<void> = Promise.resolve();
  const send = async (req: WriteRequest) => {
    await sending; // one request in flight while the next is drawn
    sending = remoteWrite(url, req);
    sending.catch(() => {}); // a refusal is thrown where it is awaited, not as an unhandled rejection meanwhile
  };
  for (let first = 0; first < fives; first += SLICE_FIVES) {
    const last = Math.min(fives, first + SLICE_FIVES);
    for (let from = 0; from < hosts.length; from += HOSTS_PER_REQUEST) {
      const g0 = performance.now();
      const req = new WriteRequest();
      for (let hi = from; hi < Math.min(hosts.length, from + HOSTS_PER_REQUEST); hi++) {
        const r = rules[hi]!;
        counts.fill(0);
        for (let j = first; j < last; j++)
          r.nextFive((s, t, v) => {
            const n = counts[s]!++;
            times[s]![n] = t * 1000;
            values[s]![n] = ruleValue(v); // as VictoriaMetrics' import writes it
          });
        r.series.forEach((_, s) => {
          if (counts[s]! > 0) req.add(labels[hi]![s]!, times[s]!, values[s]!, counts[s]!);
        });
      }
      samples += req.samples;
      generateMs += performance.now() - g0;
      await send(req);
    }
    if ((last / SLICE_FIVES) % 24 === 0) log(`remote write: ${(samples / 1e6).toFixed(0)} M samples, ${last / 288} d`);
  }
  await sending;

  // The raw scrapes of the last minutes, after every rule point (an hour is all the head allows behind its newest).
  const file = join(workDir, 'raw-tail.prom');
  const rawSamples = clusterWriter([...hosts], startS, stepS, { timestampsMs: true }).writeRange(
    file,
    endS - RAW_TAIL_S + stepS,
    endS + 1,
  );
  let req = new WriteRequest();
  for (const s of textSeries(file)) {
    req.add(encodeLabels(s.labels), s.t, s.v, s.t.length);
    if (req.size > 8 << 20) {
      await remoteWrite(url, req);
      req = new WriteRequest();
    }
  }
  if (req.samples > 0) await remoteWrite(url, req);
  rmSync(file, { force: true });
  return { samples, rawSamples, generateS: generateMs / 1000, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Starts `engine` and writes `hosts` into it as the rules hold them: VictoriaMetrics' import (answers uncached, so that
 * a bench times the engine), Prometheus's remote write (its receiver turned on). Stopped again if the writing fails.
 */
export async function engineThroughRules(
  engine: FleetEngine,
  hosts: PlannedHost[],
  startS: number,
  endS: number,
  stepS: number,
  workDir: string,
  log?: (s: string) => void,
): Promise<{ running: RunningEngine } & RulesImport & { rawSamples: number }> {
  const vm = engine === 'victoria-metrics';
  const running = await startEngine(engine, {
    args: [vm ? '-search.disableCache' : '--web.enable-remote-write-receiver'],
  });
  try {
    const written = vm
      ? await importThroughRules(running.url, hosts, startS, endS, stepS, workDir)
      : await remoteWriteThroughRules(running.url, hosts, startS, endS, stepS, workDir, log);
    return { running, ...written };
  } catch (e) {
    await running.stop();
    throw e;
  }
}

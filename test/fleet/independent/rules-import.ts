/**
 * The independent cluster at the recording rules' resolution, straight into VictoriaMetrics: for fleets and windows
 * too large to write scrape by scrape on this machine (10,000 GPUs over 7 days is some 4 billion samples at a 30 s
 * scrape; what the audit reads of the rules is about a tenth of that). Every scrape is still drawn (readings.ts, a
 * GPU's own noise stream), and each rule's point is computed from the scrapes as deploy/prometheus/saturate-rules.yml
 * computes it:
 * - each minute: GPU-Util's greatest reading (RULE_UTIL_MAX, the audit's 90th percentile), and per host the mean and
 *   the busiest of its cores (RULE_NODE_CPU, RULE_NODE_MAX_CORE: one draw of the cores per minute, without the rule's
 *   2-minute rate);
 * - every 5 minutes, from the minutes: the means of the gauges the audit reads (names.ts SEGMENT_GAUGES and
 *   WINDOW_GAUGES), GPU-Util's least and greatest, the minutes the mask was read and each limiting reason's minutes
 *   (a point only where above 0), as the 5-minute group records them.
 * - each host's load and memory (node-exporter gauges the rules path reads raw) at every scrape, from the minute's
 *   draw of its cores.
 * Not written, as the audit never reads them once the 5-minute rules cover a window: the 1-minute means, least,
 * reasons and mask, and the 5-minute means of gauges that are evidence only. Raw scrapes for the live view (the last
 * minutes) are written by the scrape writer (write.ts) beside these (importThroughRules).
 * Sent as JSON lines (`/api/v1/import`: a series' labels once, its points as arrays) by curl, one file while the next
 * is drawn.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import {
  LIMITING_REASONS,
  RULE_MASK_5M,
  RULE_MEANS_5M,
  RULE_NODE_CPU,
  RULE_NODE_MAX_CORE,
  RULE_REASON_5M,
  RULE_UTIL_MAX,
  RULE_UTIL_MAX_5M,
  RULE_UTIL_MIN_5M,
  reasonSeries,
  SEGMENT_GAUGES,
  SERIES_LABEL,
  UTIL_SPREAD_SERIES,
  WINDOW_GAUGES,
} from '../../../server/fleet/rules/names.ts';
import { modelOf, prng, stateAt, type PlannedHost } from './plan.ts';
import { hostCpu, idleDraws, levelsOf, scrape, type Scrape } from './readings.ts';
import { gpuLabels, NODE_GAUGES, nodeInstance, nodeLabels, SERIES, sends } from './write.ts';
import { importIntoVictoriaMetrics } from './vm-import.ts';

const MINUTE_S = 60;
const FIVE_S = 300;
/** Hosts per file handed to curl (~100 MB of JSON). */
const HOSTS_PER_FILE = 16;

/** A Prometheus label set as written by write.ts (`{a="1",b="2"}`) as an object. */
export function labelObject(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

/** A number as the JSON the import reads: integers whole, the rest to a thousandth. */
const num = (x: number): string => (Number.isInteger(x) ? String(x) : String(Math.round(x * 1000) / 1000));

/** One JSON line: a series, its values and their timestamps (ms, already a JSON array). */
const line = (metric: Record<string, string>, values: string, timestamps: string): string =>
  `{"metric":${JSON.stringify(metric)},"values":[${values}],"timestamps":${timestamps}}\n`;

/** The gauges whose 5-minute means are written, with the scrape field and who sends them. */
const MEAN_SERIES = [...SEGMENT_GAUGES, ...WINDOW_GAUGES].map((name) => {
  const s = SERIES.find((x) => x.name === name);
  if (!s) throw new Error(`the cluster writes no ${name}`);
  return s;
});

/** The last seconds written as raw scrapes: the live view's 5 minutes and its rate window. */
export const RAW_TAIL_S = 420;

export interface RulesImport {
  samples: number;
  /** Seconds drawing the scrapes and writing JSON (this process). */
  generateS: number;
  /** Wall seconds in all, the import beside the drawing included. */
  seconds: number;
}

/**
 * Writes what the rules hold of `hosts` over (startS, endS] (scrapes every `stepS` from `startS`, a minute a whole
 * number of them) into the VictoriaMetrics at `url`, through files in `workDir`.
 */
async function importRules(
  url: string,
  hosts: readonly PlannedHost[],
  startS: number,
  endS: number,
  stepS: number,
  workDir: string,
  /** The last seconds the scrape writer writes raw (write.ts): node gauges are written here only before them. */
  rawTailS: number,
): Promise<RulesImport> {
  const t0 = performance.now();
  if (MINUTE_S % stepS !== 0 || (endS - startS) % FIVE_S !== 0)
    throw new Error(`a minute must hold whole scrapes and the window whole 5 minutes (step ${stepS} s)`);
  const minutes = (endS - startS) / MINUTE_S;
  const fives = minutes / 5;
  const perMinute = MINUTE_S / stepS;
  const tsArray = (n: number, every: number) =>
    `[${Array.from({ length: n }, (_, i) => (startS + (i + 1) * every) * 1000).join(',')}]`;
  const minuteTs = tsArray(minutes, MINUTE_S);
  const fiveTs = tsArray(fives, FIVE_S);
  // node-exporter's gauges, at every scrape in (startS, endS - rawTailS]: those of minute k at its end and before it.
  const nodeScrapes = Math.floor((endS - rawTailS - startS) / stepS);
  const nodeTs = tsArray(nodeScrapes, stepS);
  let samples = 0;
  let generateMs = 0;
  const posting: Promise<void>[] = [];

  const post = (file: string) =>
    new Promise<void>((resolve, reject) => {
      const p = spawn('curl', ['-sS', '--fail-with-body', '--data-binary', `@${file}`, `${url}/api/v1/import`], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      p.stderr.on('data', (b: Buffer) => (err += b.toString()));
      p.once('error', reject);
      p.once('exit', (code) => {
        rmSync(file, { force: true });
        if (code === 0) resolve();
        else reject(new Error(`victoria-metrics refused the rules' import: ${err.slice(-500)}`));
      });
    });

  for (let from = 0; from < hosts.length; from += HOSTS_PER_FILE) {
    const g0 = performance.now();
    const file = join(workDir, `rules-${from}.jsonl`);
    const fd = openSync(file, 'w');
    const write = (s: string) => writeSync(fd, s, null, 'latin1');
    for (const h of hosts.slice(from, from + HOSTS_PER_FILE)) {
      const model = modelOf(h);
      const idle = idleDraws(h, model);
      h.gpus.forEach((g, gi) => {
        const labels = labelObject(gpuLabels(h, gi));
        const levels = levelsOf(g);
        const rand = prng(g.seed);
        const draw = (t: number): Scrape => {
          const state = stateAt(g, t - startS);
          return scrape(state, levels.get(state)!, model, idle[gi]!, h.powerCapShare, rand);
        };
        const means = MEAN_SERIES.filter((s) => sends(h, s.who));
        const withMask = sends(h, 'v4') || sends(h, 'v3');
        const sum = means.map(() => new Float64Array(fives));
        const minOf = new Float64Array(fives).fill(Infinity);
        const maxOf = new Float64Array(fives).fill(-Infinity);
        const maxMinute = new Float64Array(minutes);
        const reasonMinutes = LIMITING_REASONS.map(() => new Float64Array(fives));
        let before = draw(startS);
        for (let k = 0; k < minutes; k++) {
          const t = startS + (k + 1) * MINUTE_S;
          const scrapes = Array.from({ length: perMinute }, (_, i) => draw(t - (perMinute - 1 - i) * stepS));
          const j = Math.floor(k / 5);
          let lo = Infinity;
          let hi = -Infinity;
          for (const s of scrapes) {
            lo = Math.min(lo, s.utilPct);
            hi = Math.max(hi, s.utilPct);
          }
          maxMinute[k] = hi;
          minOf[j] = Math.min(minOf[j]!, lo);
          maxOf[j] = Math.max(maxOf[j]!, hi);
          means.forEach((m, i) => {
            let a = 0;
            for (const s of scrapes) a += s[m.field];
            sum[i]![j]! += a / perMinute;
          });
          if (withMask) {
            // The rule's share: a [1m:10s] subquery, each of its 6 points the latest scrape at or before it.
            const at = (p: number) =>
              p < t - MINUTE_S + stepS ? before : scrapes[Math.floor((p - (t - MINUTE_S)) / stepS) - 1]!;
            LIMITING_REASONS.forEach((r, ri) => {
              let on = 0;
              for (let p = t - 50; p <= t; p += 10) if ((at(p).reasonMask & r.bit) !== 0) on++;
              reasonMinutes[ri]![j]! += on / 6;
            });
          }
          before = scrapes[perMinute - 1]!;
        }
        means.forEach((m, i) => {
          write(
            line(
              { ...labels, __name__: RULE_MEANS_5M, [SERIES_LABEL]: m.name },
              Array.from(sum[i]!, (x) => num(x / 5)).join(','),
              fiveTs,
            ),
          );
        });
        const spreads: [string, string, Float64Array, string][] = [
          [RULE_UTIL_MIN_5M, UTIL_SPREAD_SERIES.min, minOf, fiveTs],
          [RULE_UTIL_MAX_5M, UTIL_SPREAD_SERIES.max, maxOf, fiveTs],
          [RULE_UTIL_MAX, UTIL_SPREAD_SERIES.max, maxMinute, minuteTs],
        ];
        for (const [name, series, values, ts] of spreads)
          write(line({ ...labels, __name__: name, [SERIES_LABEL]: series }, Array.from(values, num).join(','), ts));
        samples += (means.length + 2) * fives + minutes;
        if (withMask) {
          write(line({ ...labels, __name__: RULE_MASK_5M }, new Array<string>(fives).fill('5').join(','), fiveTs));
          samples += fives;
          LIMITING_REASONS.forEach((r, ri) => {
            const at = [...reasonMinutes[ri]!.keys()].filter((j) => reasonMinutes[ri]![j]! > 0);
            if (!at.length) return;
            const ts = `[${at.map((j) => (startS + (j + 1) * FIVE_S) * 1000).join(',')}]`;
            write(
              line(
                { ...labels, __name__: RULE_REASON_5M, [SERIES_LABEL]: reasonSeries(r.name) },
                at.map((j) => num(reasonMinutes[ri]![j]!)).join(','),
                ts,
              ),
            );
            samples += at.length;
          });
        }
      });
      // The host's CPU each minute: its cores' mean and busiest, as shares; and its load and memory, which the rules
      // path reads raw, at every scrape (the minute's draw), as write.ts writes them.
      const hostRand = prng(0xc0 + h.gpus.length * 7 + h.hostname.length);
      const mean: string[] = [];
      const busiest: string[] = [];
      const busyAtScrape: number[] = [];
      for (let k = 0; k < minutes; k++) {
        const t = startS + (k + 1) * MINUTE_S;
        const cores = hostCpu(
          h.gpus.map((g) => stateAt(g, t - startS)),
          hostRand,
        );
        const busyCores = cores.reduce((a, c) => a + c, 0) / 100;
        mean.push(num(busyCores / cores.length));
        busiest.push(num(Math.max(...cores) / 100));
        for (let i = 0; i < perMinute && busyAtScrape.length < nodeScrapes; i++) busyAtScrape.push(busyCores);
      }
      const instance = nodeInstance(h);
      write(line({ __name__: RULE_NODE_CPU, instance }, mean.join(','), minuteTs));
      write(line({ __name__: RULE_NODE_MAX_CORE, instance }, busiest.join(','), minuteTs));
      const node = labelObject(`{${nodeLabels(h)}}`);
      for (const [name, value] of NODE_GAUGES)
        write(
          line(
            { ...node, __name__: name },
            busyAtScrape.map((b) => num(Math.round(value(b) * 100) / 100)).join(','),
            nodeTs,
          ),
        );
      samples += 2 * minutes + NODE_GAUGES.length * busyAtScrape.length;
    }
    closeSync(fd);
    generateMs += performance.now() - g0;
    // One file posting while the next is drawn.
    if (posting.length >= 1) await posting.shift();
    posting.push(post(file));
  }
  await Promise.all(posting);
  const flushed = await fetch(`${url}/internal/force_flush`);
  if (!flushed.ok) throw new Error(`victoria-metrics did not flush: HTTP ${flushed.status}`);
  return { samples, generateS: generateMs / 1000, seconds: (performance.now() - t0) / 1000 };
}

/**
 * `hosts` over (startS, endS] as the audit reads them through the rules: the last RAW_TAIL_S seconds as raw scrapes
 * (write.ts, for the live view), the window as the rules hold it (above), into the VictoriaMetrics at `url`.
 */
export async function importThroughRules(
  url: string,
  hosts: PlannedHost[],
  startS: number,
  endS: number,
  stepS: number,
  workDir: string,
): Promise<RulesImport & { rawSamples: number }> {
  const raw = await importIntoVictoriaMetrics(url, hosts, startS, endS, stepS, workDir, endS - RAW_TAIL_S);
  const rules = await importRules(url, hosts, startS, endS, stepS, workDir, RAW_TAIL_S);
  return { ...rules, rawSamples: raw.samples, seconds: raw.seconds + rules.seconds };
}

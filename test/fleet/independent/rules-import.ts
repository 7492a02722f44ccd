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
import { flushUntilHeld } from '../victoria-metrics-harness.ts';
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

/** A rule point's value as written: integers whole, the rest to a thousandth. */
export const ruleValue = (x: number): number => (Number.isInteger(x) ? x : Math.round(x * 1000) / 1000);

/** A number as the JSON the import reads (ruleValue). */
const num = (x: number): string => String(ruleValue(x));

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

/** Where a host's points go: the series (its index in `HostRules.series`), the time (unix s) and the value. */
export type PointSink = (series: number, tS: number, value: number) => void;

/** The recording rules' points of one host, drawn five minutes at a time. */
export interface HostRules {
  /** The series its rules write, labels with `__name__`; a limiting reason that never shows gets no point. */
  series: Record<string, string>[];
  /** Draws the next five minutes' scrapes and hands each of their points to `sink`, each series' in time order. */
  nextFive(sink: PointSink): void;
}

/**
 * What the rules hold of host `h` over (startS, endS] (scrapes every `stepS` from `startS`, a minute a whole number
 * of them), five minutes at a time, so that a writer can send them series by series (VictoriaMetrics' import) or in
 * time order across the fleet (Prometheus's remote write). Node gauges stop `rawTailS` before `endS`, where the scrape
 * writer (write.ts) takes over.
 */
export function hostRules(h: PlannedHost, startS: number, endS: number, stepS: number, rawTailS: number): HostRules {
  if (MINUTE_S % stepS !== 0 || (endS - startS) % FIVE_S !== 0)
    throw new Error(`a minute must hold whole scrapes and the window whole 5 minutes (step ${stepS} s)`);
  const perMinute = MINUTE_S / stepS;
  // node-exporter's gauges, at every scrape in (startS, endS - rawTailS]: those of minute k at its end and before it.
  const nodeScrapes = Math.floor((endS - rawTailS - startS) / stepS);
  const series: Record<string, string>[] = [];
  const add = (labels: Record<string, string>) => series.push(labels) - 1;
  const model = modelOf(h);
  const idle = idleDraws(h, model);
  const gpus = h.gpus.map((g, gi) => {
    const labels = labelObject(gpuLabels(h, gi));
    const levels = levelsOf(g);
    const rand = prng(g.seed);
    const means = MEAN_SERIES.filter((s) => sends(h, s.who));
    const withMask = sends(h, 'v4') || sends(h, 'v3');
    return {
      draw: (t: number): Scrape => {
        const state = stateAt(g, t - startS);
        return scrape(state, levels.get(state)!, model, idle[gi]!, h.powerCapShare, rand);
      },
      means: means.map((m) => ({
        field: m.field,
        at: add({ ...labels, __name__: RULE_MEANS_5M, [SERIES_LABEL]: m.name }),
      })),
      min5: add({ ...labels, __name__: RULE_UTIL_MIN_5M, [SERIES_LABEL]: UTIL_SPREAD_SERIES.min }),
      max5: add({ ...labels, __name__: RULE_UTIL_MAX_5M, [SERIES_LABEL]: UTIL_SPREAD_SERIES.max }),
      maxMinute: add({ ...labels, __name__: RULE_UTIL_MAX, [SERIES_LABEL]: UTIL_SPREAD_SERIES.max }),
      mask: withMask ? add({ ...labels, __name__: RULE_MASK_5M }) : -1,
      reasons: withMask
        ? LIMITING_REASONS.map((r) =>
            add({ ...labels, __name__: RULE_REASON_5M, [SERIES_LABEL]: reasonSeries(r.name) }),
          )
        : [],
      before: null as Scrape | null,
    };
  });
  const instance = nodeInstance(h);
  const cpuMean = add({ __name__: RULE_NODE_CPU, instance });
  const cpuBusiest = add({ __name__: RULE_NODE_MAX_CORE, instance });
  const node = labelObject(`{${nodeLabels(h)}}`);
  const nodeGauges = NODE_GAUGES.map(([name, value]) => ({ value, at: add({ ...node, __name__: name }) }));
  const hostRand = prng(0xc0 + h.gpus.length * 7 + h.hostname.length);
  let five = 0;
  return {
    series,
    nextFive(sink) {
      const first = startS + five * FIVE_S;
      const fiveEnd = first + FIVE_S;
      if (fiveEnd > endS) throw new Error(`no five minutes left before ${endS}`);
      for (const g of gpus) {
        g.before ??= g.draw(startS);
        const sum = new Float64Array(g.means.length);
        const reasonMinutes = new Float64Array(g.reasons.length);
        let minOf = Infinity;
        let maxOf = -Infinity;
        for (let t = first + MINUTE_S; t <= fiveEnd; t += MINUTE_S) {
          const scrapes = Array.from({ length: perMinute }, (_, i) => g.draw(t - (perMinute - 1 - i) * stepS));
          let lo = Infinity;
          let hi = -Infinity;
          for (const s of scrapes) {
            lo = Math.min(lo, s.utilPct);
            hi = Math.max(hi, s.utilPct);
          }
          sink(g.maxMinute, t, hi);
          minOf = Math.min(minOf, lo);
          maxOf = Math.max(maxOf, hi);
          g.means.forEach((m, i) => {
            let a = 0;
            for (const s of scrapes) a += s[m.field];
            sum[i]! += a / perMinute;
          });
          if (g.mask >= 0) {
            // The rule's share: a [1m:10s] subquery, each of its 6 points the latest scrape at or before it.
            const before = g.before;
            const at = (p: number) =>
              p < t - MINUTE_S + stepS ? before : scrapes[Math.floor((p - (t - MINUTE_S)) / stepS) - 1]!;
            LIMITING_REASONS.forEach((r, ri) => {
              let on = 0;
              for (let p = t - 50; p <= t; p += 10) if ((at(p).reasonMask & r.bit) !== 0) on++;
              reasonMinutes[ri]! += on / 6;
            });
          }
          g.before = scrapes[perMinute - 1]!;
        }
        g.means.forEach((m, i) => sink(m.at, fiveEnd, sum[i]! / 5));
        sink(g.min5, fiveEnd, minOf);
        sink(g.max5, fiveEnd, maxOf);
        if (g.mask >= 0) {
          sink(g.mask, fiveEnd, 5);
          g.reasons.forEach((at, ri) => {
            if (reasonMinutes[ri]! > 0) sink(at, fiveEnd, reasonMinutes[ri]!);
          });
        }
      }
      // The host's CPU each minute: its cores' mean and busiest, as shares; and its load and memory, which the rules
      // path reads raw, at every scrape (the minute's draw), as write.ts writes them.
      for (let t = first + MINUTE_S; t <= fiveEnd; t += MINUTE_S) {
        const cores = hostCpu(
          h.gpus.map((g) => stateAt(g, t - startS)),
          hostRand,
        );
        const busyCores = cores.reduce((a, c) => a + c, 0) / 100;
        sink(cpuMean, t, busyCores / cores.length);
        sink(cpuBusiest, t, Math.max(...cores) / 100);
        const k = (t - startS) / MINUTE_S - 1;
        for (let i = k * perMinute; i < (k + 1) * perMinute && i < nodeScrapes; i++)
          for (const n of nodeGauges) sink(n.at, startS + (i + 1) * stepS, Math.round(n.value(busyCores) * 100) / 100);
      }
      five++;
    },
  };
}

/**
 * Writes what the rules hold of `hosts` over (startS, endS] (hostRules) into the VictoriaMetrics at `url`, through
 * files in `workDir`; not flushed (importThroughRules waits until the engine holds them).
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
  const fives = (endS - startS) / FIVE_S;
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
      const rules = hostRules(h, startS, endS, stepS, rawTailS);
      const values = rules.series.map((): string[] => []);
      const times = rules.series.map((): number[] => []);
      for (let j = 0; j < fives; j++)
        rules.nextFive((s, t, v) => {
          values[s]!.push(num(v));
          times[s]!.push(t * 1000);
        });
      rules.series.forEach((metric, s) => {
        if (!values[s]!.length) return;
        write(line(metric, values[s]!.join(','), `[${times[s]!.join(',')}]`));
        samples += values[s]!.length;
      });
    }
    closeSync(fd);
    generateMs += performance.now() - g0;
    // One file posting while the next is drawn.
    if (posting.length >= 1) await posting.shift();
    posting.push(post(file));
  }
  await Promise.all(posting);
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
  // A fresh engine: everything it holds over the window is what was written here.
  const samples = raw.samples + rules.samples;
  await flushUntilHeld(url, { samples, minMs: startS * 1000, maxMs: endS * 1000, what: 'the rules and the raw tail' });
  return { ...rules, rawSamples: raw.samples, seconds: raw.seconds + rules.seconds };
}

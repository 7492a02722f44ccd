import { z } from 'zod';
import { LEVELS } from './topics.ts';
import { QuestionSchema } from './question.ts';
import { AGGS, OPS, validateCheck, type Check } from '../lib/checks.ts';
import { isMetricId, METRIC_IDS } from '../lib/lab/metrics.ts';
import { getScenario, SCENARIO_IDS } from '../lib/sim/index.ts';
import { LAB_SETUP_IDS } from '../lib/diagnose/setup.ts';

const kebab = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use kebab-case, e.g. "apply-the-fix".');

/** One threshold: `{ metric, agg, windowS, op, value }`, optionally `ratioTo: previous-step`. */
const MetricCheckSchema = z.strictObject({
  /** A metric id from src/lib/lab/metrics.ts, e.g. gpuUtilPct, smActivePct, maxCorePct, samplesPerSec, mfuPct. */
  metric: z.string(),
  /** How to aggregate the window: mean, min, max, p5, p50, p95, stddev or last. */
  agg: z.enum(AGGS, { error: `\`agg\` must be one of: ${AGGS.join(', ')}.` }),
  /** Trailing window in seconds (1–300). */
  windowS: z.number(),
  /** Comparison: <, <=, > or >=. */
  op: z.enum(OPS, { error: `\`op\` must be one of: ${OPS.join(' ')}.` }),
  /** Threshold, in the metric's unit (a fraction 0–1 for the 0/1 clock-reason metrics; a multiple with ratioTo). */
  value: z.number(),
  /** Compare with this multiple of the previous step's mean instead (e.g. value 3 = "three times"). */
  ratioTo: z.literal('previous-step').optional(),
});

type CheckInput =
  | z.infer<typeof MetricCheckSchema>
  | { all: CheckInput[] }
  | { any: CheckInput[] }
  | { forAtLeastS: number; check: CheckInput };

/**
 * A check written as data: a threshold, `{ all: [...] }`, `{ any: [...] }` or
 * `{ forAtLeastS, check }`. Unknown metrics and impossible windows or thresholds are rejected
 * with a message that says the fix (see `validateCheck`).
 */
const RawCheckSchema: z.ZodType<CheckInput> = z.lazy(() =>
  z.union(
    [
      MetricCheckSchema,
      z.strictObject({ all: z.array(RawCheckSchema).min(1, '`all` needs at least one check.') }),
      z.strictObject({ any: z.array(RawCheckSchema).min(1, '`any` needs at least one check.') }),
      z.strictObject({ forAtLeastS: z.number(), check: RawCheckSchema }),
    ],
    {
      error:
        'A check is { metric, agg, windowS, op, value }, { all: [...] }, { any: [...] } or { forAtLeastS, check }.',
    },
  ),
);

export const CheckSchema: z.ZodType<Check> = RawCheckSchema.superRefine((c, ctx) => {
  for (const message of validateCheck(c)) ctx.addIssue({ code: 'custom', message });
}).transform((c) => c as Check) as unknown as z.ZodType<Check>;

/** Knob values for a simulator scenario, e.g. `{ numWorkers: 0 }`. */
const KnobsSchema = z.record(z.string(), z.number()).default({});

/** What the in-page simulator (or the server's `sim:`) plays: a scenario and its knobs. */
export const SimPlaySchema = z.strictObject({
  /** Scenario id from src/lib/sim (idle, data-starved, small-kernels, memory-bound, compute-bound, throttled, nccl-hang, straggler). */
  scenario: z.enum(SCENARIO_IDS as [string, ...string[]], {
    error: `\`scenario\` must be one of: ${SCENARIO_IDS.join(', ')}.`,
  }),
  /** Knob values; unknown knobs are rejected. */
  knobs: KnobsSchema,
});

/** Problems with knobs that the scenario does not have. */
function knobProblems(scenario: string, knobs: Record<string, number>, where: string): string[] {
  const known = getScenario(scenario).knobs.map((k) => k.id);
  return Object.keys(knobs)
    .filter((k) => !known.includes(k))
    .map((k) => `${where}: scenario "${scenario}" has no knob "${k}"; knobs: ${known.join(', ') || 'none'}.`);
}

/** One step: what to do, the check that says it worked, a hint, and what the simulator plays. */
export const LabStepSchema = z.strictObject({
  /** Stable id, kebab-case, unique in the lab. */
  id: kebab,
  /** Short imperative title, e.g. "Add workers". */
  title: z.string().trim().min(3).max(80),
  /** What to do and what to look at (Markdown). */
  instruction: z.string().trim().min(20),
  /** The command for the real-GPU run of this step, e.g. `python workloads/dataloader.py --num-workers 0`. */
  run: z.string().trim().optional(),
  /** The check that passes when the step is done. */
  check: CheckSchema,
  /** A hint shown on request (Markdown). */
  hint: z.string().trim().min(10),
  /** What the simulator plays while this step is live. */
  sim: SimPlaySchema,
  /** The control that applies the fix in simulation, e.g. label "Set num_workers = 8", knobs { numWorkers: 8 }. */
  fix: z
    .strictObject({
      label: z.string().trim().min(3).max(60),
      /** Switch scenario too (e.g. from the elementwise op to the matmul); default: the step's. */
      scenario: z.enum(SCENARIO_IDS as [string, ...string[]]).optional(),
      knobs: KnobsSchema,
    })
    .optional(),
});
export type LabStep = z.output<typeof LabStepSchema>;

/** A chart of one or more metrics in the same unit, with the lesson's thresholds drawn. */
export const LabChartSchema = z.strictObject({
  title: z.string().trim().min(3).max(60),
  /** 1–4 metric ids. */
  metrics: z.array(z.string()).min(1).max(4),
  /** Horizontal lines, e.g. `{ value: 80, label: "SM activity 80%: necessary, not sufficient" }`. */
  thresholds: z.array(z.strictObject({ value: z.number(), label: z.string().trim().min(3).max(80) })).default([]),
});

/** Frontmatter of a lab in content/labs/<slug>.md. The id is the file's slug. */
export const LabSchema = z
  .strictObject({
    /** The lab's title. */
    title: z.string().trim().min(3).max(90),
    /** One sentence: what the learner will see and be able to do. */
    objective: z.string().trim().min(20).max(240),
    /** Position in the lab list (1 = first). */
    order: z.number().int().min(1),
    /** intro, core or advanced. */
    level: z.enum(LEVELS),
    /** Minutes it takes in simulation. */
    minutes: z.number().int().min(1).max(60),
    /** Card ids to read first (content/cards/**); the first is linked from the debrief. */
    prerequisites: z.array(z.string()).min(1, 'List at least one prerequisite card id.'),
    /** What a real run needs: any NVIDIA GPU, Hopper or newer (for GPM), or nothing. */
    needs: z.enum(['gpu', 'hopper', 'none'], { error: '`needs` must be gpu, hopper or none.' }),
    /** The PyTorch script for the real-GPU runs, e.g. workloads/dataloader.py. */
    workload: z
      .string()
      .regex(/^workloads\/[a-z0-9_]+\.py$/, 'A workload is a script under workloads/, e.g. workloads/dataloader.py.')
      .optional(),
    /** Charts of the metrics the lab is about (1–3). */
    charts: z.array(LabChartSchema).min(1).max(3),
    /** For MFU: model FLOPs per token when the workload does not report it, and optionally the peak. */
    mfu: z
      .strictObject({ flopsPerToken: z.number().positive(), peakTflops: z.number().positive().optional() })
      .optional(),
    /**
     * Show the cost box: the idle share of the last 30 s priced at the GPU's sourced list price
     * (src/lib/gpu-prices.ts, the fleet page's table); a lab states no price of its own.
     */
    cost: z.boolean({ error: '`cost` is true or false: the price comes from src/lib/gpu-prices.ts.' }).default(false),
    /**
     * What the workload's own setup rules out, which the lab's diagnosis then never names as the cause, e.g.
     * `[cuda-graphs]`: the step replays as a CUDA Graph, so Python launches no kernels (src/lib/diagnose/setup.ts).
     */
    setup: z
      .array(z.enum(LAB_SETUP_IDS, { error: `\`setup\` entries must be one of: ${LAB_SETUP_IDS.join(', ')}.` }))
      .default([]),
    /** Show the roofline figure (H100 SXM) on the page. */
    roofline: z.boolean().default(false),
    /** Steps in order; passing them all completes the lab. */
    steps: z.array(LabStepSchema).min(1).max(8),
    /** The debrief: 3+ questions, ids prefixed `lab-<slug>-`. */
    debrief: z.array(QuestionSchema).min(3, 'A lab needs a debrief of at least 3 questions.'),
  })
  .superRefine((lab, ctx) => {
    const ids = new Set<string>();
    lab.steps.forEach((s, i) => {
      if (ids.has(s.id))
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i, 'id'],
          message: `Step id "${s.id}" is used twice; step ids are unique within a lab.`,
        });
      ids.add(s.id);
      for (const m of knobProblems(s.sim.scenario, s.sim.knobs, `steps[${i}].sim.knobs`))
        ctx.addIssue({ code: 'custom', path: ['steps', i, 'sim'], message: m });
      if (s.fix)
        for (const m of knobProblems(s.fix.scenario ?? s.sim.scenario, s.fix.knobs, `steps[${i}].fix.knobs`))
          ctx.addIssue({ code: 'custom', path: ['steps', i, 'fix'], message: m });
    });
    lab.charts.forEach((c, i) => {
      for (const m of c.metrics) {
        if (!isMetricId(m))
          ctx.addIssue({
            code: 'custom',
            path: ['charts', i, 'metrics'],
            message: `charts[${i}]: unknown metric "${m}". Use one of: ${METRIC_IDS.join(', ')}.`,
          });
      }
    });
  });
export type Lab = z.output<typeof LabSchema>;

/**
 * What a lab's own workload has already ruled out, which the diagnosis must not name as the cause. A lab declares
 * it in its frontmatter (`setup: [cuda-graphs]`, content/labs/*.md); the lab page passes it to `diagnose()`; the
 * fleet and the trace page know nothing of the job's code and pass none. Pure.
 */

/** Every setup a lab can declare, with what it rules out. */
export const LAB_SETUPS = {
  /**
   * The training step is captured once and replayed as a CUDA Graph: Python launches no kernel per step, so launch
   * overhead is not the cause, and a pegged CPU core is the Python thread waiting for the GPU, not launching.
   */
  'cuda-graphs': 'the step replays as a CUDA Graph: no kernel launches from Python',
} as const;

/** A setup a lab can declare, e.g. "cuda-graphs". */
export type LabSetup = keyof typeof LAB_SETUPS;

/** The setup ids, for the lab schema. */
export const LAB_SETUP_IDS = Object.keys(LAB_SETUPS) as [LabSetup, ...LabSetup[]];

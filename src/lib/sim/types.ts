/** Types shared by the simulator's scenarios. */
import type { HostSample } from '../../protocol/metrics.ts';
import type { GpuState, SimContext } from './model.ts';

/** A control a lab can turn to "apply the fix" (e.g. DataLoader `num_workers`). */
export interface Knob {
  /** Key in the knobs record and in `sim:<id>?<knob>=<value>`. */
  id: string;
  /** What the learner sees, e.g. "DataLoader num_workers". */
  label: string;
  min: number;
  max: number;
  step: number;
  /** Value when the scenario starts (the problem). */
  default: number;
  /** Value that fixes the problem (or the healthy value). */
  fixed: number;
}

/** A rate the simulated training loop reports; absent fields are not reported. */
export interface SimRates {
  samplesPerSec?: number;
  tokensPerSec?: number;
  stepsPerSec?: number;
  /** Share of wall time the loop waits for the next batch (0–1), as a DataLoader timer reports it. */
  dataWaitFraction?: number;
}

/** One scenario: metadata for lists plus the pure frame function. */
export interface ScenarioDef {
  id: string;
  title: string;
  /** One line for menus. */
  description: string;
  /** One line on what the fix is and what changes when it is applied. */
  fix: string;
  gpuCount: number;
  knobs: readonly Knob[];
  /** The state at `ctx.tMs`; must depend only on the context. */
  frame(ctx: SimContext): { gpus: GpuState[]; host: HostSample; rates: SimRates | null };
}

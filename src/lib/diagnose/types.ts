/** The shapes `diagnose()` returns, shared by its rule files. */

export type BottleneckKind =
  | 'data-starvation'
  | 'small-kernels'
  | 'memory-bound'
  | 'compute-bound'
  | 'throttled'
  | 'idle-allocated'
  | 'communication-hang'
  | 'straggler'
  | 'idle'
  | 'cant-tell';

/** The verdict. */
export interface Diagnosis {
  kind: BottleneckKind;
  /** One line, e.g. "Busy in time, not in space: small kernels". */
  title: string;
  /** High only when the readings that decide the verdict are present in the window. */
  confidence: 'high' | 'medium' | 'low';
  /** Readings that support it, e.g. "GPU-Util 97% but SM activity 22% over 30 s". Only readings the source gave. */
  evidence: string[];
  /** The next thing to try. */
  next: string;
  /** The card that explains it (content/cards/**). */
  cardId: string;
  /** For "can't tell": the one reading that would decide it, and what each answer would mean. */
  decide?: string;
  /** GPU indexes (positions in the stream) it is about. */
  gpus: number[];
}

/** A verdict about one GPU, before the GPUs are looked at together. */
export type Verdict = Omit<Diagnosis, 'gpus'>;

/** Every kind, in the order reports list them. */
export const BOTTLENECK_KINDS: readonly BottleneckKind[] = [
  'idle',
  'idle-allocated',
  'data-starvation',
  'small-kernels',
  'memory-bound',
  'compute-bound',
  'throttled',
  'communication-hang',
  'straggler',
  'cant-tell',
];

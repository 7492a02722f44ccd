/**
 * The one list of topics. A card's `topic` must be one of these ids; the order here is the order
 * topics appear on the home and topic pages.
 */
export const TOPICS = [
  {
    id: 'meters',
    title: 'Reading the meters',
    blurb: 'What GPU-Util, memory, power, clocks and the profiling counters really measure.',
  },
  {
    id: 'training',
    title: 'Diagnosing training',
    blurb: 'Data loaders, syncs, small kernels, precision, memory and distributed stalls.',
  },
  {
    id: 'useful-work',
    title: 'Measuring useful work',
    blurb: 'Throughput, MFU and HFU, dense peaks and MBU: the numbers that pay the bill.',
  },
  {
    id: 'serving',
    title: 'Serving and sharing',
    blurb: 'Batching, right-sizing, MIG, MPS, time-slicing and the cost of idle GPUs.',
  },
  {
    id: 'tooling',
    title: 'Tooling',
    blurb: 'nvidia-smi, DCGM, Nsight Systems and Compute, the PyTorch profiler, Prometheus.',
  },
] as const;

export type TopicId = (typeof TOPICS)[number]['id'];
export const TOPIC_IDS = TOPICS.map((t) => t.id) as [TopicId, ...TopicId[]];

/** Looks up a topic by id; throws with the list of valid ids when it is unknown. */
export function topicById(id: string): (typeof TOPICS)[number] {
  const topic = TOPICS.find((t) => t.id === id);
  if (!topic) throw new Error(`Unknown topic "${id}". Use one of: ${TOPIC_IDS.join(', ')}.`);
  return topic;
}

/** Card levels, easiest first. */
export const LEVELS = ['intro', 'core', 'advanced'] as const;
export type Level = (typeof LEVELS)[number];

/** Drawing a practice quiz from the whole bank. Pure and deterministic for a seed. */
import { shuffled } from './random.ts';

/** Number of questions in a practice quiz. */
export const PRACTICE_SIZE = 30;

/**
 * Draws `size` distinct questions, spread as evenly as the bank allows over topics: topics take
 * turns (in a seeded order), each giving its next question in a seeded order, and the result is
 * shuffled so topics are interleaved unpredictably.
 * @example drawPractice(bank, 'k3x9q2').length // 30 (or the bank size when smaller)
 */
export function drawPractice<Q extends { id: string; topic: string }>(
  bank: readonly Q[],
  seed: string,
  size = PRACTICE_SIZE,
): Q[] {
  const byTopic = new Map<string, Q[]>();
  const seen = new Set<string>();
  for (const q of bank) {
    if (seen.has(q.id)) continue; // a bank never has duplicates, but a quiz must never repeat
    seen.add(q.id);
    byTopic.set(q.topic, [...(byTopic.get(q.topic) ?? []), q]);
  }
  const queues = shuffled([...byTopic.keys()].sort(), `${seed}:topics`).map((t) =>
    shuffled(byTopic.get(t)!, `${seed}:${t}`),
  );
  const picked: Q[] = [];
  while (picked.length < size && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      const q = queue.shift();
      if (q && picked.length < size) picked.push(q);
    }
  }
  return shuffled(picked, `${seed}:order`);
}

/**
 * A fixed quiz's questions from the bank, in the quiz's order. Throws, naming the first missing id, when the bank
 * lacks one (a page and a bank from different deploys: a reload fetches both again).
 * @example pickFromBank(bank, ['gpu-util-what', 'mfu-define']).map((q) => q.id) // ['gpu-util-what', 'mfu-define']
 */
export function pickFromBank<Q extends { id: string }>(bank: readonly Q[], ids: readonly string[]): Q[] {
  const byId = new Map(bank.map((q) => [q.id, q]));
  return ids.map((id) => {
    const q = byId.get(id);
    if (!q) throw new Error(`question "${id}" is not in the question bank; reload to get this quiz's latest version`);
    return q;
  });
}

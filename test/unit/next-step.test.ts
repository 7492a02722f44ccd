/** Home has one primary action, the single best next thing, and the rest secondary (issue 28, item 6). */
import { describe, expect, test } from 'vitest';
import { nextSteps, type NextStepInput } from '../../src/lib/next-step.ts';

const base: NextStepInput = {
  saves: [],
  reviewNow: 0,
  nextCard: { title: 'GPU utilization', href: '/cards/gpu-util/' },
  readCount: 0,
  reviewHref: '/review/',
  practiceHref: '/practice/',
};
const primaries = (i: NextStepInput) => nextSteps(i).filter((s) => s.primary);
const describeSteps = (i: NextStepInput) => nextSteps(i).map((s) => `${s.primary ? '*' : ''}${s.lead}${s.text}`);

describe('home’s next step', () => {
  test('a new learner: Start reading, and a practice quiz beside it', () => {
    expect(describeSteps(base)).toEqual(['*Start reading', 'Take a practice quiz']);
  });

  test('once a card is read, "Start reading" is gone and the next card is the one primary button', () => {
    expect(describeSteps({ ...base, readCount: 1, nextCard: { title: 'MFU', href: '/cards/mfu/' } })).toEqual([
      '*Next card:MFU',
      'Take a practice quiz',
    ]);
  });

  test('a quiz in progress comes first, then review, then the next card; one primary whatever the state', () => {
    const busy: NextStepInput = {
      ...base,
      readCount: 3,
      reviewNow: 4,
      saves: [
        { label: 'Resume Random practice quiz: 14/30', href: '/practice/random/?seed=a' },
        { label: 'Resume Card quiz: MFU: 2/6', href: '/cards/mfu/#quiz' },
      ],
    };
    expect(describeSteps(busy)).toEqual([
      '*Resume Random practice quiz: 14/30',
      'Review:4 questions back now',
      'Next card:GPU utilization',
      'Take a practice quiz',
    ]);
    for (const state of [base, busy, { ...base, nextCard: null, readCount: 62 }, { ...base, reviewNow: 1 }])
      expect(primaries(state)).toHaveLength(1);
  });

  test('review questions back now come before reading on', () => {
    expect(describeSteps({ ...base, readCount: 2, reviewNow: 1 })).toEqual([
      '*Review:1 question back now',
      'Next card:GPU utilization',
      'Take a practice quiz',
    ]);
  });

  test('every card read and nothing due: the practice quiz is the primary', () => {
    expect(describeSteps({ ...base, nextCard: null, readCount: 62 })).toEqual(['*Take a practice quiz']);
  });
});

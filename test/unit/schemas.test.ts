import { describe, expect, test } from 'vitest';
import { CardSchema } from '../../src/schemas/card.ts';
import { checkDeck, checkSections, type DeckEntry } from '../../src/lib/deck-check.ts';
import { goodBody, goodCard, single } from '../fixtures/cards.ts';

/** The messages zod gives for a card, as "path: message". */
function problems(card: unknown): string[] {
  const r = CardSchema.safeParse(card);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

function entry(id: string, overrides: Partial<DeckEntry> = {}): DeckEntry {
  return {
    id,
    file: `content/cards/meters/${id}.md`,
    body: goodBody,
    related: [],
    questionIds: [`${id}-q1`],
    ...overrides,
  };
}

describe('CardSchema', () => {
  test('accepts the good fixture and fills defaults', () => {
    const r = CardSchema.parse(goodCard());
    expect(r.questions).toHaveLength(4);
    expect(r.questions[0]!.scenario).toBe(false);
  });

  test('rejects a card without sources, saying how many it needs', () => {
    const { sources: _, ...card } = goodCard();
    expect(problems(card).join('\n')).toMatch(/^sources: A card needs `sources`: at least 2 entries/m);
    expect(problems({ ...goodCard(), sources: [] }).join('\n')).toMatch(/sources: A card needs at least 2 sources/);
  });

  test('rejects a single-choice question with two correct options', () => {
    const card = goodCard();
    const q = single('q-two-right') as { options: { correct?: boolean }[] };
    q.options[1]!.correct = true;
    (card['questions'] as unknown[])[0] = q;
    expect(problems(card)).toContain(
      'questions.0.options: A `single` question needs exactly one option with `correct: true`. Mark one, or use kind `multiple`.',
    );
  });

  test('rejects a single-choice question with no correct option', () => {
    const card = goodCard();
    const q = single('q-none') as { options: { correct?: boolean }[] };
    q.options[0]!.correct = false;
    (card['questions'] as unknown[])[1] = q;
    expect(problems(card).join('\n')).toMatch(/questions\.1\.options: A `single` question needs exactly one option/);
  });

  test('rejects an option without `why`', () => {
    const card = goodCard();
    const q = single('q-no-why') as { options: Record<string, unknown>[] };
    delete q.options[1]!['why'];
    (card['questions'] as unknown[])[0] = q;
    expect(problems(card)).toContain(
      'questions.0.options.1.why: Every option needs a `why`: explain why it is right or wrong.',
    );
  });

  test('rejects "all of the above", which shuffling would break', () => {
    const card = goodCard();
    const q = single('q-all') as { options: Record<string, unknown>[] };
    q.options.push({ text: 'All of the above', why: 'A positional option cannot be shuffled.' });
    (card['questions'] as unknown[])[0] = q;
    expect(problems(card).join('\n')).toMatch(/questions\.0\.options\.2\.text: Options are shuffled/);
  });

  test('rejects an unknown topic and lists the valid ones', () => {
    expect(problems({ ...goodCard(), topic: 'gpus' }).join('\n')).toMatch(
      /topic: `topic` must be one of: meters, training/,
    );
  });

  test('rejects a numeric question whose listed mistake would be marked right', () => {
    const card = goodCard();
    const q = (card['questions'] as Record<string, unknown>[])[3]!;
    q['mistakes'] = [{ value: 5.2, why: 'Too close to the answer.' }];
    expect(problems(card).join('\n')).toMatch(/questions\.3\.mistakes: A listed mistake lies within the tolerance/);
  });

  test('rejects a question of unknown kind', () => {
    const card = goodCard();
    (card['questions'] as Record<string, unknown>[])[0]!['kind'] = 'essay';
    expect(problems(card).join('\n')).toMatch(/questions\.0(\.kind)?: A question needs `kind`/);
  });
});

describe('checkSections', () => {
  test('accepts all six sections in order', () => {
    expect(checkSections('x.md', goodBody)).toEqual([]);
  });

  test('names the missing section and the file', () => {
    const body = goodBody.replace('## When not to use it', '## Caveats');
    expect(checkSections('content/cards/meters/x.md', body)).toEqual([
      'content/cards/meters/x.md: body is missing the section "## When not to use it". Add it (sections in order: Why it exists · The mental model · How it works · When to use it · When not to use it · One canonical example).',
    ]);
  });

  test('ignores headings inside code blocks and reports sections out of order', () => {
    const swapped = goodBody
      .replace('## Why it exists', '## TMP')
      .replace('## The mental model', '## Why it exists')
      .replace('## TMP', '## The mental model');
    expect(checkSections('x.md', swapped).join()).toMatch(/out of order/);
    expect(checkSections('x.md', '```md\n## Why it exists\n```\n')).toHaveLength(6);
  });
});

describe('checkDeck', () => {
  test('accepts a sound deck', () => {
    expect(checkDeck([entry('a', { related: ['b'] }), entry('b', { related: ['a'] })])).toEqual([]);
  });

  test('rejects an unknown related id, naming file and field', () => {
    expect(checkDeck([entry('a', { related: ['nope'] })])).toEqual([
      'content/cards/meters/a.md: related[0] "nope" is not a card id. Use an existing card\'s file name (without .md) or remove it.',
    ]);
  });

  test('rejects a card whose topic is not its folder', () => {
    expect(checkDeck([entry('a', { topic: 'serving' })])).toEqual([
      'content/cards/meters/a.md: topic is "serving" but the file is in content/cards/meters/. Move the file to content/cards/serving/ or fix `topic`.',
    ]);
    expect(checkDeck([entry('a', { topic: 'meters' })])).toEqual([]);
  });

  test('rejects a question id used twice anywhere in the deck', () => {
    const out = checkDeck([
      entry('a', { questionIds: ['shared-id'] }),
      entry('b', { questionIds: ['x', 'shared-id'] }),
    ]);
    expect(out).toEqual([
      'content/cards/meters/b.md: questions[1].id "shared-id" is already used in content/cards/meters/a.md. Question ids must be unique across the deck: rename this one.',
    ]);
  });
});

import { describe, expect, test } from 'vitest';
import { decodeLog, encodeLog } from '../../src/store/log-codec.ts';
import { logSnapshotRecord, trustedLog } from '../../src/store/log-snapshot.ts';
import { compareEvents, ProgressEventSchema, type ProgressEvent } from '../../src/schemas/progress-event.ts';
import { makeAnswerEvents } from '../fixtures/answer-events.ts';

const zone = { tz: 'Europe/Berlin', offsetMin: 120 };
const t0 = Date.parse('2026-03-01T09:00:00Z');
/** One event of every type (and every optional field), valid by the schema, in (at, id) order. */
const everyType: ProgressEvent[] = [
  {
    id: `${t0}-aaaa`,
    at: t0,
    ...zone,
    type: 'answer',
    questionId: 'meters-q1',
    cardId: 'meters/card-1',
    topic: 'meters',
    choice: ['a', 'c'],
    correct: false,
    timeMs: 5_200,
    context: 'card',
    kind: 'multiple',
  },
  {
    id: `${t0 + 1}-bbbb`,
    at: t0 + 1,
    tz: 'UTC-03:30',
    offsetMin: -210,
    type: 'answer',
    questionId: 'meters-q2',
    cardId: 'meters/card-1',
    topic: 'meters',
    choice: 42.5,
    correct: true,
    timeMs: 86_400_000,
    timeClamped: true,
    context: 'practice',
  },
  { id: `${t0 + 2}-cccc`, at: t0 + 2, ...zone, type: 'card-read', cardId: 'meters/card-1', topic: 'meters' },
  { id: `${t0 + 2}-dddd`, at: t0 + 2, ...zone, type: 'saved', cardId: 'meters/card-1', saved: true },
  { id: `${t0 + 3}-eeee`, at: t0 + 3, ...zone, type: 'saved', cardId: 'meters/card-1', saved: false },
  {
    id: `${t0 + 4}-ffff`,
    at: t0 + 4,
    ...zone,
    type: 'quiz-done',
    context: 'review',
    quizId: 'review-1',
    total: 5,
    correct: 3,
    durationMs: 60_000,
    durationClamped: true,
    topics: [{ topic: 'meters', correct: 3, total: 5 }],
  },
  {
    id: `${t0 + 5}-gggg`,
    at: t0 + 5,
    ...zone,
    type: 'quiz-done',
    context: 'card',
    quizId: 'q-2',
    total: 1,
    correct: 1,
    durationMs: 0.5,
  },
  {
    id: `${t0 + 6}-hhhh`,
    at: t0 + 6,
    ...zone,
    type: 'lab-done',
    labId: 'lab-1',
    passed: true,
    durationMs: 1_000,
    durationClamped: true,
  },
  { id: `${t0 + 7}-iiii`, at: t0 + 7, ...zone, type: 'lab-done', labId: 'lab-2', passed: false, durationMs: 2_000 },
  { id: `${t0 + 8}-jjjj`, at: t0 + 8, ...zone, type: 'undo', targetId: `${t0}-aaaa`, questionId: 'meters-q1' },
  // A field a newer release added is kept (the schema is forward-compatible).
  {
    id: `${t0 + 9}-kkkk`,
    at: t0 + 9,
    ...zone,
    type: 'card-read',
    cardId: 'meters/card-2',
    topic: 'meters',
    futureField: { a: [1, 'x'] },
  } as ProgressEvent,
];

describe('the compact text of the log snapshot (log-codec.ts)', () => {
  test('every event type round-trips exactly as JSON would keep it, in order', () => {
    for (const e of everyType) expect(ProgressEventSchema.safeParse(e).success).toBe(true);
    const back = decodeLog(encodeLog(everyType));
    expect(back).toEqual(JSON.parse(JSON.stringify(everyType)));
    expect(back.map((e) => Object.keys(e))).toEqual(everyType.map((e) => Object.keys(e)));
  });

  test('a longer log, with strings that repeat (kept once, in the table), round-trips too', () => {
    const events = [...makeAnswerEvents(300, t0 - 10_000_000), ...everyType];
    const text = encodeLog(events);
    expect((JSON.parse(text) as { s: string[] }).s).toContain('Europe/Berlin');
    expect(decodeLog(text)).toEqual(JSON.parse(JSON.stringify(events)));
  });

  test('a key whose value is undefined is left out, as JSON leaves it out', () => {
    const e = { ...makeAnswerEvents(1)[0]!, kind: undefined };
    expect(decodeLog(encodeLog([e]))).toEqual([JSON.parse(JSON.stringify(e))]);
    expect('kind' in decodeLog(encodeLog([e]))[0]!).toBe(false);
  });

  test('through the snapshot record, every type is trusted and read back', () => {
    const rec = logSnapshotRecord(['c:a'], everyType);
    expect(trustedLog(rec, ['c:a'])?.events).toEqual(JSON.parse(JSON.stringify(everyType)));
  });

  test('50,000 answers take under a third of their JSON', () => {
    const events = makeAnswerEvents(50_000);
    const text = encodeLog(events);
    expect(text.length).toBeLessThan(JSON.stringify(events).length / 3);
    const back = decodeLog(text);
    expect(back).toHaveLength(events.length);
    expect(back[49_999]).toEqual(events[49_999]);
    expect(back.every((e, i) => i === 0 || compareEvents(back[i - 1] as ProgressEvent, e as ProgressEvent) < 0)).toBe(
      true,
    );
  });

  const encoded = () =>
    JSON.parse(encodeLog(everyType)) as { s: string[]; k: string[][]; c: [number, unknown[]][][]; o: number[] };
  test.each([
    ['cut short', () => encodeLog(everyType).slice(0, 100)],
    ['a string index outside the table', () => JSON.stringify({ ...encoded(), s: [] })],
    ['a shape index outside the shapes', () => JSON.stringify({ ...encoded(), o: [...encoded().o.slice(1), 99] })],
    ['more events than rows', () => JSON.stringify({ ...encoded(), o: [...encoded().o, 0] })],
    ['rows no event takes', () => JSON.stringify({ ...encoded(), o: encoded().o.slice(1) })],
    [
      'a column shorter than the others',
      () => {
        const e = encoded();
        e.c[0]![1]![1] = e.c[0]![1]![1]!.slice(1);
        return JSON.stringify(e);
      },
    ],
    [
      'an unknown column kind',
      () => {
        const e = encoded();
        e.c[0]![1]![0] = 9;
        return JSON.stringify(e);
      },
    ],
    [
      'a boolean that is not 0 or 1',
      () => {
        const e = encoded();
        const col = e.c[0]!.find(([kind]) => kind === 3)!;
        col[1][0] = 2;
        return JSON.stringify(e);
      },
    ],
    [
      'a key that would change the prototype',
      () => {
        const e = encoded();
        e.k[0]![e.k[0]!.length - 1] = '__proto__';
        return JSON.stringify(e);
      },
    ],
    [
      'a key twice',
      () => {
        const e = encoded();
        e.k[0]![1] = e.k[0]![0]!;
        return JSON.stringify(e);
      },
    ],
    ['parts missing', () => JSON.stringify({ s: [], k: [] })],
  ])('a text %s does not decode, and the snapshot holding it is not trusted', (_, spoil) => {
    const text = spoil();
    expect(() => decodeLog(text)).toThrow();
    const rec = { ...logSnapshotRecord(['c:a'], everyType), text };
    expect(trustedLog(rec, ['c:a'])).toBeNull();
  });

  test('an event id that is no event id is not trusted', () => {
    const e = encoded();
    const idCol = e.c[0]![e.k[0]!.indexOf('id')]!;
    idCol[1][0] = 'NOT VALID';
    expect(decodeLog(JSON.stringify(e))[0]!['id']).toBe('NOT VALID');
    const rec = { ...logSnapshotRecord(['c:a'], everyType), text: JSON.stringify(e) };
    expect(trustedLog(rec, ['c:a'])).toBeNull();
  });
});

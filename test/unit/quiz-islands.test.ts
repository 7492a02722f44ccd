/**
 * What the quiz islands render, as a learner's browser gets it (react-dom/server, the same render Astro does):
 * the results list, an answered question, a finished card quiz and a lab's debrief.
 */
import { createElement, createRef } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { md, mdInline } from '../../src/data/markdown.ts';
import { Summary } from '../../src/islands/Summary.tsx';
import { QuestionView } from '../../src/islands/QuestionView.tsx';
import { QuizLast } from '../../src/islands/QuizLast.tsx';
import { LabDebrief } from '../../src/islands/LabDebrief.tsx';
import type { ChoiceQuizQuestion } from '../../src/lib/quiz.ts';
import type { Answer } from '../../src/lib/quiz-session.ts';
import { multi, single } from './quiz-fixtures.ts';
import { DMON_PROMPT } from './dmon-prompt.ts';

const scenario: ChoiceQuizQuestion = { ...single, id: 'dmon', scenario: true, promptHtml: md(DMON_PROMPT) };
const answered = (q: ChoiceQuizQuestion, choices: string[], correct: boolean): Answer => ({
  questionId: q.id,
  response: { kind: q.kind, choices },
  correct,
  at: 1,
  timeMs: 1,
});

/** Text without tags (entities left as they are). */
const text = (html: string) => html.replace(/<[^>]*>/g, '');

function summaryOf(q: ChoiceQuizQuestion, a: Answer): string {
  return renderToStaticMarkup(
    createElement(Summary, {
      questions: [q],
      answers: [a],
      durationMs: 60_000,
      onRetake: () => undefined,
      links: [],
      context: 'card',
    }),
  );
}

describe('the results list', () => {
  test("a scenario's row says its first sentence, and its table once, preformatted, when opened", () => {
    const html = summaryOf(scenario, answered(scenario, ['a'], false));
    const row = /<summary>([\s\S]*?)<\/summary>/.exec(html)![1]!;
    expect(text(row)).toBe('Wrong: A job on one H100 is slow.');
    expect(html.split('A job on one H100 is slow.').length - 1).toBe(1); // not again when the row opens
    expect(html.match(/<pre>/g)).toHaveLength(1);
    expect(html).toMatch(/<pre><code[^>]*># gpu {4}sm {3}mem\n# Idx {5}% {5}%\n {4}0 {4}12 {5}3\n/);
    expect(html).toContain('<div class="prompt">'); // the quiz's own prompt rendering (quiz.css styles it)
  });

  test('inline code in a row keeps its <code>, no spaces added inside its brackets', () => {
    const q = { ...single, id: 'code', promptHtml: md('What does GPU-Util (`nvidia-smi dmon -d 1`) measure?') };
    const row = /<summary>([\s\S]*?)<\/summary>/.exec(summaryOf(q, answered(q, ['b'], true)))![1]!;
    expect(row).toContain('(<code>nvidia-smi dmon -d 1</code>)');
    expect(text(row)).toBe('Right: What does GPU-Util (nvidia-smi dmon -d 1) measure?');
  });
});

function questionView(q: ChoiceQuizQuestion, a: Answer | undefined): string {
  return renderToStaticMarkup(
    createElement(QuestionView, {
      question: q,
      options: q.options,
      answered: a,
      draft: [],
      numberText: '',
      inputError: '',
      promptRef: createRef<HTMLDivElement>(),
      onPick: () => undefined,
      onNumberText: () => undefined,
      onCheck: () => undefined,
    }),
  );
}

/** Each option's text as a screen reader reads it (aria-hidden parts dropped) and what it shows. */
function optionsOf(html: string): { key: string; heard: string; shown: string }[] {
  return [...html.matchAll(/data-option="(\w)"[^>]*>([\s\S]*?)<\/(?:button|label)>/g)].map((m) => ({
    key: m[1]!,
    heard: text(m[2]!.replace(/<span[^>]*aria-hidden="true"[^>]*>[^<]*<\/span>/g, '')).trim(),
    shown: text(m[2]!.replace(/<span class="sr-only">[^<]*<\/span>/g, '')).trim(),
  }));
}

describe('an answered question', () => {
  test('marks the right option ✓ and a wrong pick ✗, in symbols and in words, not colour alone', () => {
    expect(optionsOf(questionView(single, undefined)).map((o) => o.shown)).toEqual(['1a', '2b', '3c']);
    expect(optionsOf(questionView(single, answered(single, ['a'], false)))).toEqual([
      { key: 'a', heard: 'a, your answer, wrong', shown: '1a✗' },
      { key: 'b', heard: 'b, correct answer', shown: '2b✓' },
      { key: 'c', heard: 'c', shown: '3c' },
    ]);
  });

  test('checkboxes too: every right option ✓, a right pick says it was the answer given', () => {
    expect(optionsOf(questionView(multi, answered(multi, ['a', 'c'], false))).map((o) => o.heard)).toEqual([
      'a, your answer, correct',
      'b, correct answer',
      'c, your answer, wrong',
    ]);
  });

  test('a multiple-answer question says "Select all that apply" once', () => {
    const q: ChoiceQuizQuestion = {
      ...multi,
      promptHtml: md('Which changes raise occupancy? Select all that apply.'),
      options: multi.options.map((o) => ({ ...o, html: mdInline(o.html) })),
    };
    const html = questionView(q, undefined);
    expect(text(html).match(/select all that apply/gi)).toHaveLength(1);
    expect(text(html)).toContain('Which changes raise occupancy?');
  });
});

describe('a finished card quiz', () => {
  test('shows its last score and a button to practise again', () => {
    const html = renderToStaticMarkup(
      createElement(QuizLast, { last: { correct: 5, total: 6, at: 1 }, onAgain: () => undefined }),
    );
    expect(text(html)).toContain('Last time: 5 of 6');
    expect(html).toMatch(/<button type="button" class="button">Practise again<\/button>/);
  });
});

describe("a lab's debrief", () => {
  const lab = { id: 'idle', title: 'Idle GPU' };
  for (const unlocked of [false, true])
    test(`has one "Debrief" heading ${unlocked ? 'once unlocked' : 'while locked'}`, () => {
      const html = renderToStaticMarkup(createElement(LabDebrief, { lab, debrief: [single], unlocked }));
      expect(html.match(/<h\d[^>]*>Debrief<\/h\d>/g)).toHaveLength(1);
    });

  for (const unlocked of [false, true])
    test(`links "analyse the trace of your run" to /trace/ and says where the file is ${unlocked ? 'once unlocked' : 'while locked'}`, () => {
      const withWorkload = { ...lab, workload: 'workloads/dataloader.py' };
      const html = renderToStaticMarkup(createElement(LabDebrief, { lab: withWorkload, debrief: [single], unlocked }));
      expect(html).toMatch(/<a href="[^"]*\/trace\/">Analyse the trace of your run<\/a>/);
      expect(text(html)).toContain('python workloads/dataloader.py … --profile traces');
      expect(text(html)).toContain('traces/&lt;run&gt;.pt.trace.json.gz');
      expect(text(html)).toMatch(/read on this device, nothing is uploaded/);
    });

  test('has no trace link for a lab without a PyTorch workload', () => {
    const html = renderToStaticMarkup(createElement(LabDebrief, { lab, debrief: [single], unlocked: true }));
    expect(html).not.toContain('/trace/');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  createLabSession,
  labReducer,
  MAX_POINTS,
  newLabSession,
  simPlay,
  type LabAction,
  type LabSession,
  type SessionLab,
  type SourceInfo,
} from '../../src/lib/lab/session.ts';
import { simMessage } from '../../src/lib/lab/run.ts';
import { describeCheck } from '../../src/lib/checks.ts';
import { LabSchema } from '../../src/schemas/lab.ts';
import { splitFrontmatter } from '../../src/data/load-deck-files.ts';

/** A lab from content/labs in the island's shape (as src/data/labs.ts builds it, without the Markdown). */
function labFile(id: string): SessionLab & { id: string } {
  const d = LabSchema.parse(
    splitFrontmatter(readFileSync(join(process.cwd(), 'content', 'labs', `${id}.md`), 'utf8')).data,
  );
  return {
    id,
    mfu: d.mfu ? { flopsPerToken: d.mfu.flopsPerToken, peakTflops: d.mfu.peakTflops ?? null } : null,
    setup: d.setup,
    steps: d.steps.map((s) => ({
      id: s.id,
      title: s.title,
      instructionHtml: '',
      run: s.run ?? null,
      check: s.check,
      checkText: describeCheck(s.check),
      hintHtml: '',
      sim: { scenario: s.sim.scenario, knobs: s.sim.knobs },
      fix: s.fix ? { label: s.fix.label, scenario: s.fix.scenario ?? s.sim.scenario, knobs: s.fix.knobs } : null,
    })),
  };
}

const lab = labFile('data-loader-starvation');
const T0 = Date.parse('2026-03-29T10:00:00Z');
const reduce = (s: LabSession, ...actions: LabAction[]) => actions.reduce((x, a) => labReducer(lab, x, a), s);

/** Plays the in-page simulator as the page does (what `simPlay` says, every 500 ms) until `until` holds. */
function play(s: LabSession, until: (s: LabSession) => boolean, maxTicks = 400): LabSession {
  let tMs = s.messages.length * 500;
  for (let i = 0; i < maxTicks && !until(s); i++) {
    const p = simPlay(lab, s);
    s = reduce(s, { type: 'message', message: simMessage(p.scenario, tMs, 'lab', p.knobs, i, T0) });
    tMs += 500;
  }
  return s;
}

describe('labReducer', () => {
  test('a lab from start to done: a passed step is announced, the fix plays once applied, the debrief unlocks', () => {
    let s = reduce(newLabSession(), { type: 'restart', at: T0 });
    expect(simPlay(lab, s)).toEqual({ scenario: 'data-starved', knobs: { numWorkers: 0 }, speed: 1 });

    s = play(s, (x) => x.run.index === 1);
    expect(s.announce).toBe('Step 1 passed: See the sawtooth.');
    s = play(s, (x) => x.result?.state === 'fail');
    expect(s.run.index).toBe(1); // without the fix the second step fails and stays live

    s = reduce(s, { type: 'fix' });
    expect(s.fixApplied).toBe(true);
    expect(simPlay(lab, s)).toMatchObject({ scenario: 'data-starved', knobs: { numWorkers: 8 } });
    s = play(s, (x) => x.done);
    expect(s).toMatchObject({ done: true, unlocked: true, announce: 'Every step passed. The debrief is unlocked.' });
    // Once done, the simulator keeps playing the fix: the finished lab stays green, and 30 s on it reads healthy.
    expect(simPlay(lab, s).knobs).toEqual({ numWorkers: 8 });
    const doneAt = s.messages.length;
    s = play(s, (x) => x.messages.length === doneAt + 60);
    expect(s.diagnosis?.title).toMatch(/Healthy/);
  });

  test('a passed step takes its fix off: the next step starts from its own scenario', () => {
    const s = play(reduce(newLabSession(), { type: 'fix' }), (x) => x.run.index === 1);
    expect(s).toMatchObject({ fixApplied: false, fixPlaying: false });
  });

  test('diagnoses every 2 s of sample time, not on every sample', () => {
    const first = play(newLabSession(), (x) => x.messages.length === 1);
    const fourth = play(first, (x) => x.messages.length === 4);
    const fifth = play(fourth, (x) => x.messages.length === 5);
    expect(first.diagnosis).not.toBeNull();
    expect(fourth.diagnosis).toBe(first.diagnosis);
    expect(fifth.diagnosedAtMs).toBe(T0 + 2000);
    expect(fifth.diagnosis).not.toBe(first.diagnosis);
  });

  test(`keeps the last ${MAX_POINTS} points for the charts`, () => {
    const s = play(newLabSession(), (x) => x.messages.length === MAX_POINTS + 5, MAX_POINTS + 5);
    expect(s.points).toHaveLength(MAX_POINTS);
    expect(s.points[0]?.tMs).toBe(T0 + 5 * 500);
    expect(s.messages).toHaveLength(MAX_POINTS + 5);
  });

  test('choosing another GPU charts that GPU for the samples already kept', () => {
    let s = newLabSession();
    for (let t = 0; t <= 20_000; t += 500)
      s = reduce(s, { type: 'message', message: simMessage('nccl-hang', t, 'lab', { hang: 1 }, t / 500, T0) });
    expect(s.points.at(-1)?.values.gpuUtilPct).toBeGreaterThan(90); // rank 0 spins in the collective
    s = reduce(s, { type: 'gpu', index: 2 });
    expect(s.gpuIndex).toBe(2);
    expect(s.points).toHaveLength(s.messages.length);
    expect(s.points.at(-1)?.values.gpuUtilPct).toBeLessThan(5); // rank 2 is the one that stalled
  });

  test('a new source starts a new run (at the kept step) but keeps the unlocked debrief, the server URL and the speed', () => {
    const opened = reduce(
      newLabSession(),
      { type: 'opened', serverUrl: 'http://127.0.0.1:8790/?token=t', serverFirst: true, unlocked: true, saved: null },
      { type: 'speed', speed: 10 },
      { type: 'error', message: 'The URL has no ?token=… part.' },
    );
    const ran = play(opened, (x) => x.run.index === 1);
    const again = reduce(ran, { type: 'restart', at: T0 + 60_000 });
    expect(again).toEqual({
      ...newLabSession(),
      announce: ran.announce, // the live region keeps its last words; nothing new to say yet
      serverUrl: opened.serverUrl,
      serverFirst: true,
      unlocked: true,
      speed: 10,
      startedAtMs: T0 + 60_000,
      saved: ran.saved,
      run: { index: 1, startedAtMs: null, passedAtMs: [], baselines: ran.run.baselines },
    });
  });

  test('stopping ends the source and its status but keeps the run', () => {
    const info: SourceInfo = {
      kind: 'page-sim',
      simulated: true,
      source: 'sim:data-starved',
      reason: null,
      devices: [],
      origin: null,
      control: 'page',
    };
    const started = reduce(newLabSession(), { type: 'started', info }, { type: 'status', text: 'connected' });
    const s = play(started, (x) => x.messages.length === 3);
    const stopped = reduce(s, { type: 'stopped' });
    expect(stopped).toMatchObject({ source: null, status: '' });
    expect(stopped.points).toBe(s.points);
  });
});

describe('labReducer: the moment a step passes', () => {
  test('the next step shows no result of its own until its samples come (never the passed step\'s "Passing")', () => {
    const s = play(reduce(newLabSession(), { type: 'restart', at: T0 }), (x) => x.run.index === 1);
    expect(s.result).toBeNull();
    const next = play(s, (x) => x.messages.length === s.messages.length + 1);
    expect(next.run.index).toBe(1);
    expect(next.result?.state).not.toBe('pass'); // step 2 without its fix: waiting or failing, judged on its own samples
  });

  test('the diagnosis reads the fixed run at once when the lab completes, not the 30 s before the fix', () => {
    let s = play(reduce(newLabSession(), { type: 'restart', at: T0 }), (x) => x.run.index === 1);
    s = play(s, (x) => x.result?.state === 'fail');
    expect(s.diagnosis?.title).toMatch(/starv/i);
    s = play(reduce(s, { type: 'fix' }), (x) => x.done);
    expect(s.diagnosis?.title).toMatch(/Healthy/);
    expect(s.diagnosedAtMs).toBe(s.messages.at(-1)!.sampledAtMs);
  });

  test('a fix applied late: the last check passes on a window still mostly from before it, the verdict does not', () => {
    // busy-in-time's last step passes when SM activity (or power) doubles and samples/s triples over 10 s: the
    // first fixed seconds already do that, with 8 s of batch-1 samples still in the window (CI under load).
    const busy = labFile('busy-in-time');
    const step = (x: LabSession, a: LabAction) => labReducer(busy, x, a);
    let s = step(newLabSession(), { type: 'restart', at: T0 });
    let tMs = 0;
    const tick = () => {
      const p = simPlay(busy, s);
      s = step(s, { type: 'message', message: simMessage(p.scenario, tMs, 'lab', p.knobs, tMs / 500, T0) });
      tMs += 500;
    };
    while (s.run.index < 1 && tMs < 120_000) tick();
    for (let i = 0; i < 16; i++) tick(); // the learner reads for 8 s before applying the fix
    s = step(s, { type: 'fix' });
    const fixAt = s.messages.at(-1)!.sampledAtMs;
    while (!s.done && tMs < 240_000) tick();
    expect(s.done).toBe(true);
    const fixed = s.messages.filter((m) => m.sampledAtMs > fixAt).length;
    expect(fixed).toBeLessThan(10); // passed within 5 s of the fix: its window was mostly the old run
    expect(s.diagnosis?.title).not.toMatch(/Busy in time/);
    while (s.diagnosis?.title.startsWith('Collecting') && tMs < 300_000) tick();
    expect(s.diagnosis?.title).toMatch(/Healthy/);
  });
});

describe('labReducer: steps passed on this device', () => {
  test('a passed step is kept; a new source (reconnect, reload, server restart) resumes at the live step', () => {
    const s = play(reduce(newLabSession(), { type: 'restart', at: T0 }), (x) => x.run.index === 1);
    expect(s.saved).toEqual({ passed: 1, baselines: [s.run.baselines[0]] });
    // A reload: the page opens with what the device kept, and its next run starts at step 2.
    const reopened = reduce(newLabSession(), {
      type: 'opened',
      serverUrl: '',
      serverFirst: false,
      unlocked: false,
      saved: s.saved,
    });
    expect(reopened.run.index).toBe(1);
    const again = reduce(reopened, { type: 'restart', at: T0 + 60_000 });
    expect(again.run).toMatchObject({ index: 1, baselines: s.run.baselines });
    // Step 2's check compares samples/s with step 1's: the kept baseline lets it pass after the fix.
    const done = play(reduce(again, { type: 'fix' }), (x) => x.done);
    expect(done).toMatchObject({ done: true, saved: null });
  });

  test('"start over" forgets the kept steps and starts at step 1 on the same source', () => {
    const s = play(reduce(newLabSession(), { type: 'restart', at: T0 }), (x) => x.run.index === 1);
    const over = reduce(s, { type: 'start-over', at: T0 + 1000 });
    expect(over).toMatchObject({
      saved: null,
      run: { index: 0 },
      messages: [],
      announce: 'Started again from step 1.',
    });
    expect(reduce(over, { type: 'restart', at: T0 + 2000 }).run.index).toBe(0);
  });

  test("the lab server refusing its knobs (409) turns the step to its command, with the server's reason", () => {
    const info: SourceInfo = {
      kind: 'server',
      simulated: false,
      source: 'nvml',
      reason: null,
      devices: [],
      origin: 'http://127.0.0.1:8790',
      control: 'server',
    };
    const s = reduce(newLabSession(), { type: 'started', info }, { type: 'refused', message: 'reads a real GPU' });
    expect(s.source?.control).toBe('none');
    expect(s.error).toBe('reads a real GPU');
    const moved = reduce(reduce(newLabSession(), { type: 'started', info }), {
      type: 'controlled',
      source: 'sim:data-starved',
      reason: 'simulated scenario "data-starved"',
    });
    expect(moved.source).toMatchObject({ source: 'sim:data-starved', reason: 'simulated scenario "data-starved"' });
  });
});

describe('createLabSession', () => {
  test('get returns the same session until a change, and each change tells the subscribers once', () => {
    const model = createLabSession(lab);
    const before = model.get();
    let calls = 0;
    const off = model.subscribe(() => calls++);
    expect(model.get()).toBe(before);
    model.dispatch({ type: 'speed', speed: 5 });
    expect(calls).toBe(1);
    expect(model.get()).not.toBe(before);
    expect(model.get().speed).toBe(5);
    off();
    model.dispatch({ type: 'speed', speed: 2 });
    expect(calls).toBe(1);
  });
});

describe("the lab's diagnosis and the lab's own setup (issue 28)", () => {
  test('busy-in-time replays its step as a CUDA Graph: its verdict never names kernel launches from Python', () => {
    const busy = labFile('busy-in-time');
    let s = labReducer(busy, newLabSession(), { type: 'restart', at: T0 });
    const said: string[] = [];
    for (let i = 0; i < 80; i++) {
      const p = simPlay(busy, s);
      s = labReducer(busy, s, { type: 'message', message: simMessage(p.scenario, i * 500, 'lab', p.knobs, i, T0) });
      const d = s.diagnosis;
      if (d) said.push(d.title, ...d.evidence, d.next, d.decide ?? '');
    }
    expect(s.diagnosis?.kind).toBe('small-kernels');
    expect(said.join('\n')).not.toMatch(/launching kernels|launch overhead|launch gaps/);
  });
});

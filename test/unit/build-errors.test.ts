/**
 * The build itself (Astro's content sync) refuses a bad deck, naming the file and the field and
 * saying how to fix it. Runs `astro sync` on small fixture decks in a temp folder.
 */
import { describe, expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const good = readFileSync('content/cards/meters/gpu-util.md', 'utf8').replace(/^related: \[[^\]]*\]$/m, 'related: []');

/** Runs content sync over a deck made of `files` (relative path → text); returns exit code and output. */
function syncDeck(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'saturate-deck-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const r = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'sync'], {
      env: {
        ...process.env,
        SATURATE_CONTENT_DIR: dir,
        ASTRO_TELEMETRY_DISABLED: '1',
        FORCE_COLOR: '0',
        NO_COLOR: '1',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('astro sync on a bad deck', { timeout: 90_000 }, () => {
  test('a single-choice question with two correct options: names the file and field', () => {
    const bad = good.replace(
      '      - text: "It is averaged over a full minute, so stalls of a few seconds vanish in it."\n',
      '      - text: "It is averaged over a full minute, so stalls of a few seconds vanish in it."\n        correct: true\n',
    );
    expect(bad).not.toBe(good);
    const r = syncDeck({ 'meters/gpu-util.md': bad });
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/gpu-util\.md/);
    expect(r.output).toContain(
      'questions.0.options: A `single` question needs exactly one option with `correct: true`. Mark one, or use kind `multiple`.',
    );
  });

  test('an unknown related id and a missing section: every problem, each with its file', () => {
    const bad = good.replace('related: []', 'related: [no-such-card]').replace('## When not to use it', '## Caveats');
    const r = syncDeck({ 'meters/gpu-util.md': bad });
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(/The deck has 2 problem\(s\)/);
    expect(r.output).toMatch(/gpu-util\.md: related\[0\] "no-such-card" is not a card id/);
    expect(r.output).toMatch(/gpu-util\.md: body is missing the section "## When not to use it"/);
  });

  test('a question id used by two cards', () => {
    const twin = good.replace(/^title: .*$/m, 'title: "A twin card"');
    const r = syncDeck({ 'meters/gpu-util.md': good, 'meters/twin.md': twin });
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(
      /twin\.md: questions\[0\]\.id "gpu-util-why-misleading" is already used in .*gpu-util\.md/,
    );
  });

  test('an unknown figure and an out-of-range figure value: names the file and the choices', () => {
    const line = '::figure{name="kernel-timeline" kernelUs=190 gapUs=10 smsUsed=42}';
    expect(good).toContain(line);
    const r = syncDeck({
      'meters/gpu-util.md': good.replace(line, '::figure{name="kernel-timelin"}\n\n::figure{name="mfu" gpus=0}'),
    });
    expect(r.status).not.toBe(0);
    expect(r.output).toMatch(
      /gpu-util\.md: ::figure\{name="kernel-timelin"\}: unknown figure "kernel-timelin"; known figures: kernel-timeline,/,
    );
    expect(r.output).toMatch(
      /gpu-util\.md: ::figure\{name="mfu" gpus=0\}: figure "mfu": gpus=0 must be a number from 1 to 512/,
    );
  });
});

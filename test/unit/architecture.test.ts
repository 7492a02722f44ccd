/**
 * The import rules of ARCHITECTURE.md ("What may import what"), checked on the real source tree.
 * Each rule names the files that break it, so a failure says what to move.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { codeFiles, importsOf, loadTimeIdentifiers, ROOT, scriptOf } from './source-files.ts';

interface Edge {
  from: string;
  spec: string;
  dynamic: boolean;
  /** Repository-relative path of the imported file, or null for a package or `node:` / `astro:` module. */
  to: string | null;
}

const files = codeFiles(['src', 'server']);
const edges: Edge[] = files.flatMap((from) =>
  importsOf(from).map(({ spec, dynamic }) => ({
    from,
    spec,
    dynamic,
    to: spec.startsWith('.') ? relative(ROOT, resolve(dirname(join(ROOT, from)), spec)) : null,
  })),
);
const under = (dir: string) => (path: string | null) => path !== null && (path === dir || path.startsWith(`${dir}/`));
const pkg = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const show = (es: Edge[]) => es.map((e) => `${e.from} imports ${e.spec}`);

describe('import rules', () => {
  test('pure src/lib imports no store, client, island, React, idb-keyval or astro:* module', () => {
    const bad = edges.filter(
      (e) =>
        under('src/lib')(e.from) &&
        (['src/store', 'src/client', 'src/islands', 'src/components', 'src/pages', 'src/data'].some((d) =>
          under(d)(e.to),
        ) ||
          (e.to === null &&
            (['react', 'react-dom', 'idb-keyval', 'koffi'].includes(pkg(e.spec)) || e.spec.startsWith('astro')))),
    );
    expect(show(bad)).toEqual([]);
  });

  test('src/lib reads no DOM global at module load', () => {
    const domGlobals = /^(?:window|document|localStorage|sessionStorage|navigator|indexedDB|location)$/;
    const bad = files.filter(under('src/lib')).flatMap((f) =>
      loadTimeIdentifiers(f)
        .filter((id) => domGlobals.test(id))
        .map((id) => `${f} reads ${id}`),
    );
    expect(bad).toEqual([]);
  });

  test('only src/store imports idb-keyval', () => {
    const bad = edges.filter((e) => e.to === null && pkg(e.spec) === 'idb-keyval' && !under('src/store')(e.from));
    expect(show(bad)).toEqual([]);
  });

  test('only server/nvml imports koffi, and server/nvml imports nothing else of the server', () => {
    const koffi = edges.filter((e) => e.to === null && pkg(e.spec) === 'koffi' && !under('server/nvml')(e.from));
    const outward = edges.filter(
      (e) => under('server/nvml')(e.from) && under('server')(e.to) && !under('server/nvml')(e.to),
    );
    expect(show([...koffi, ...outward])).toEqual([]);
  });

  test('server/ imports from src/ only the protocol and the pure simulation and helpers of src/lib', () => {
    const allowed = ['src/protocol', 'src/lib'];
    const bad = edges.filter(
      (e) => under('server')(e.from) && under('src')(e.to) && !allowed.some((d) => under(d)(e.to)),
    );
    expect(show(bad)).toEqual([]);
  });

  test('the site never imports the server', () => {
    const bad = edges.filter((e) => under('src')(e.from) && under('server')(e.to));
    expect(show(bad)).toEqual([]);
  });

  test('no import cycles in src/ and server/ (type imports included; a lazy import() breaks a cycle)', () => {
    const next = new Map<string, string[]>();
    for (const e of edges) if (e.to !== null && !e.dynamic) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (f: string, path: string[]): void => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' → '));
        return;
      }
      state.set(f, 'open');
      for (const t of next.get(f) ?? []) walk(t, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of files) walk(f, []);
    expect(cycles).toEqual([]);
  });
});

describe('where shared models live (issue 16, item 8)', () => {
  const schema = 'src/schemas/progress-event.ts';
  test('the progress event schema is in src/schemas, imported by both the store and src/lib, defined nowhere else', () => {
    const importers = edges.filter((e) => e.to !== null && e.to.replace(/\.ts$/, '') === schema.replace(/\.ts$/, ''));
    expect(importers.some((e) => under('src/store')(e.from))).toBe(true);
    expect(importers.some((e) => under('src/lib')(e.from))).toBe(true);
    const defined = files.filter(
      (f) => f !== schema && /export const (?:ProgressEvent|AnswerEvent|CardReadEvent)Schema\b/.test(scriptOf(f)),
    );
    expect(defined).toEqual([]);
  });

  test("the quiz islands' shared types are not in Quiz.tsx: it is imported only for its component", () => {
    const named = files.filter((f) =>
      /import\s+(?:type\s+)?(?:\w+\s*,\s*)?\{[^}]*\}\s*from\s*'[^']*\/Quiz\.tsx'/.test(scriptOf(f)),
    );
    expect(named).toEqual([]);
  });

  test('the diagnosis lives in src/lib/diagnose/, as the lab and trace modules live in theirs (issue 28, item 4)', () => {
    const loose = files.filter((f) => /^src\/lib\/diagnose[-.][^/]*$/.test(f));
    expect(loose).toEqual([]);
    expect(files.filter(under('src/lib/diagnose')).length).toBeGreaterThan(1);
  });
});

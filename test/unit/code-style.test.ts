/**
 * Habits of the codebase that a formatter cannot keep: one statement per expression, comments that name
 * files that exist, and `@example`s whose stated result is what the code returns.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { codeFiles, parse, ROOT } from './source-files.ts';

const files = codeFiles(['src', 'server', 'scripts', 'bench', 'test']);

describe('code style', () => {
  test('no comma operator joins two statements (a for loop header may use one)', () => {
    const bad: string[] = [];
    for (const f of files) {
      const src = parse(f);
      const visit = (n: ts.Node): void => {
        if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.CommaToken) {
          const p = n.parent;
          if (!(ts.isForStatement(p) && (p.initializer === n || p.incrementor === n)))
            bad.push(`${f}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().slice(0, 60)}`);
        }
        ts.forEachChild(n, visit);
      };
      visit(src);
    }
    expect(bad).toEqual([]);
  });

  test('every repository file a comment names exists', () => {
    const named =
      /(?<![\w./-])((?:src|server|test|scripts|bench|content|public|docs|workloads|python|deploy)\/[\w./-]*\.[a-z]{1,5})\b/g;
    const bad: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const c of commentsOf(text))
        for (const m of c.matchAll(named)) if (!existsSync(join(ROOT, m[1]!))) bad.push(`${f} names ${m[1]}`);
    }
    expect(bad).toEqual([]);
  });

  test('an @example that states its result returns it', async () => {
    const examples = codeFiles(['src/lib']).flatMap((f) => statedExamples(f).map((e) => ({ file: f, ...e })));
    const wrong: string[] = [];
    let ran = 0;
    for (const { file, code, expected } of examples) {
      const mod = (await import(pathToFileURL(join(ROOT, file)).href)) as Record<string, unknown>;
      const run = new Function(...Object.keys(mod), `return (${code});`) as (...a: unknown[]) => unknown;
      let got: unknown;
      try {
        got = run(...Object.values(mod));
      } catch (e) {
        if (e instanceof ReferenceError) continue; // it names data a reader supplies (`bank`, `snapshot`…)
        throw e;
      }
      ran++;
      if (JSON.stringify(got) !== JSON.stringify(expected))
        wrong.push(`${file}: ${code} gives ${JSON.stringify(got)}, the comment says ${JSON.stringify(expected)}`);
    }
    expect(wrong).toEqual([]);
    expect(ran).toBeGreaterThanOrEqual(8);
  });
});

/** The text of every `//` and `/* … *\/` comment in a file (strings are not comments). */
function commentsOf(text: string): string[] {
  const out: string[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.JSX, text);
  for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = scanner.scan())
    if (k === ts.SyntaxKind.SingleLineCommentTrivia || k === ts.SyntaxKind.MultiLineCommentTrivia)
      out.push(scanner.getTokenText());
  return out;
}

/**
 * One-line examples of the form `@example call(literal args) // result`, where the call uses only the
 * module's own exports and the result is a JSON literal (a number, a quoted string, true/false, null).
 */
function statedExamples(file: string): { code: string; expected: unknown }[] {
  const out: { code: string; expected: unknown }[] = [];
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/@example\s+([^\n]*?)\s*\/\/\s*([^\n]*?)\s*(?:\*\/)?$/gm)) {
    const code = m[1]!;
    let expected: unknown;
    try {
      expected = JSON.parse(m[2]!);
    } catch {
      continue; // a prose result ("drifts slowly…") is for people, not for this check
    }
    if (code.includes('...')) continue; // an elided argument list
    out.push({ code, expected });
  }
  return out;
}

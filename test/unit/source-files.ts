/** The repository's own source files, read for the architecture and comment tests (no build needed). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const ROOT = join(import.meta.dirname, '..', '..');
const CODE = /\.(?:ts|tsx|mts|mjs|astro)$/;

/** Repository-relative paths of the code files under `dirs` (TypeScript, JavaScript modules, Astro). */
export function codeFiles(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const d of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, d.name);
      if (d.isDirectory()) walk(path);
      else if (CODE.test(d.name) && !d.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}

/** The script of a file: an Astro component's frontmatter and `<script>` blocks, or the whole file. */
export function scriptOf(file: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (!file.endsWith('.astro')) return text;
  const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
  const scripts = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  return [front, ...scripts].join('\n');
}

/** A parsed source file (Astro files parse their script part). */
export function parse(file: string): ts.SourceFile {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(file, scriptOf(file), ts.ScriptTarget.Latest, true, kind);
}

export interface Import {
  spec: string;
  /** `import('…')`: loaded when called, so it makes no cycle at module load. */
  dynamic: boolean;
}

/** Every module a file imports or re-exports, static and dynamic. */
export function importsOf(file: string): Import[] {
  const out: Import[] = [];
  const visit = (n: ts.Node): void => {
    if (
      (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) &&
      n.moduleSpecifier &&
      ts.isStringLiteral(n.moduleSpecifier)
    )
      out.push({ spec: n.moduleSpecifier.text, dynamic: false });
    else if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    )
      out.push({ spec: n.arguments[0].text, dynamic: true });
    ts.forEachChild(n, visit);
  };
  visit(parse(file));
  return out;
}

/** Identifiers a module evaluates when it loads: outside any function body, and not under `typeof`. */
export function loadTimeIdentifiers(file: string): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) || ts.isTypeOfExpression(n) || ts.isTypeNode(n) || ts.isImportDeclaration(n)) return;
    if (ts.isClassDeclaration(n) || ts.isClassExpression(n)) return; // members run when called or constructed
    if (ts.isIdentifier(n) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) out.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(parse(file));
  return out;
}

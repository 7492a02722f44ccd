/** Build-time check of a card's `::figure{…}` lines (fenced code ignored): unknown figures and values. */
import { looksLikeDiagram, looksLikeFigure, parseFigureLine } from './directive.ts';
import { resolveFigure } from './registry.ts';
import { resolveDiagram } from '../diagrams/registry.ts';

/**
 * One problem per bad figure line, each naming the file and quoting the line, and saying the fix.
 * @example checkFigures('a.md', '::figure{name="mfu"}').length // 0
 */
export function checkFigures(file: string, body: string): string[] {
  const problems: string[] = [];
  let inFence = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && (looksLikeFigure(line) || looksLikeDiagram(line))) {
      try {
        const attrs = parseFigureLine(line);
        if (looksLikeDiagram(line)) resolveDiagram(attrs);
        else resolveFigure(attrs);
      } catch (e) {
        problems.push(`${file}: ${line.trim()}: ${(e as Error).message}`);
      }
    }
  }
  return problems;
}

/** Test helper: the figures a card places, with the starting values the card gives them, read from the card itself. */
import { readFileSync } from 'node:fs';
import { parseFigureLine } from '../../src/lib/figures/directive.ts';
import { resolveFigure } from '../../src/lib/figures/registry.ts';

/** Every `::figure{…}` line of a card, resolved and rendered, in page order. */
export function cardFigures(cardPath: string) {
  return readFileSync(cardPath, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('::figure'))
    .map((line) => {
      const { figure, values } = resolveFigure(parseFigureLine(line));
      return { figure, values, view: figure.view(values) };
    });
}

/** The card's first figure. */
export function cardFigure(cardPath: string) {
  const first = cardFigures(cardPath)[0];
  if (!first) throw new Error(`${cardPath} places no figure: add a ::figure{…} line`);
  return first;
}

/** The search page's order: the card a query names first, then cards and pages, then questions. */
import { describe, expect, test } from 'vitest';
import { loadDeck } from '../../src/data/load-deck-files.ts';
import { namesCard, rankResults, type SearchResult } from '../../src/lib/search-match.ts';

const card = (slug: string, title: string): SearchResult => ({
  url: `/saturate/cards/${slug}/`,
  meta: { title },
  excerpt: '',
});
const question = (n: number, cardTitle: string): SearchResult => ({
  url: `/saturate/cards/x${n}/#quiz`,
  meta: { title: `Question: ${n}`, card: cardTitle },
  excerpt: '',
});
const glossary: SearchResult = { url: '/saturate/glossary/', meta: { title: 'Glossary' }, excerpt: '' };

const MFU = card('mfu', "MFU: how much of the GPU's math becomes model progress");
const HFU = card('hfu-vs-mfu', 'HFU vs MFU: when recomputation makes the GPU look busier');

describe('rankResults', () => {
  test('"mfu" lists the MFU card first, then other cards and pages, then questions, in Pagefind order', () => {
    const found = [question(1, MFU.meta.title!), question(2, HFU.meta.title!), HFU, glossary, question(3, 'x'), MFU];
    expect(rankResults('mfu', found)).toEqual([
      MFU,
      HFU,
      glossary,
      question(1, MFU.meta.title!),
      question(2, HFU.meta.title!),
      question(3, 'x'),
    ]);
  });

  test('matches in any case, by title, short name, slug, and an acronym spelled out', () => {
    for (const q of [
      'MFU',
      'Mfu',
      ' mfu ',
      'model flops utilization',
      "MFU: how much of the GPU's math becomes model progress",
    ])
      expect(rankResults(q, [HFU, MFU])[0], q).toBe(MFU);
    expect(rankResults('hfu vs mfu', [MFU, HFU])[0]).toBe(HFU);
    expect(rankResults('hfu-vs-mfu', [MFU, HFU])[0]).toBe(HFU);
  });

  test('a query that names no card keeps Pagefind order within cards, questions still last', () => {
    const found = [question(1, 'x'), HFU, MFU];
    expect(rankResults('recomputation', found)).toEqual([HFU, MFU, question(1, 'x')]);
    expect(namesCard('mf', MFU.meta.title!, 'mfu')).toBe(false);
    expect(namesCard('model flops', MFU.meta.title!, 'mfu')).toBe(false);
  });

  test('every card in the deck comes first for its short name and for its slug, above questions that cite it', () => {
    const { cards } = loadDeck(process.cwd());
    const pages = cards.map((c) => card(c.id, c.data.title));
    for (const c of cards) {
      const short = c.data.title.split(':')[0]!;
      const found = [
        question(1, c.data.title),
        ...pages.filter((p) => p.meta.title !== c.data.title),
        card(c.id, c.data.title),
      ];
      for (const q of [short, short.toUpperCase(), c.id]) {
        const first = rankResults(q, found)[0]!;
        expect(first.url, `${q} → ${first.url}`).toBe(`/saturate/cards/${c.id}/`);
      }
    }
  });
});

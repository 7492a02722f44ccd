import { describe, expect, test } from 'vitest';
import { headerRules, headersFile, IMMUTABLE, REVALIDATE, sitemapUrls } from '../../src/integrations/static-host.ts';
import { headersFor, parseHeadersFile } from '../https/headers.ts';

describe('sitemapUrls', () => {
  test('puts every page under SITE_URL and the base, with a trailing slash, sorted', () => {
    expect(
      sitemapUrls('https://me.github.io', '/saturate/', ['cards/b/', '', 'cards/a', 'bank.json', '404', 'offline/']),
    ).toEqual([
      'https://me.github.io/saturate/',
      'https://me.github.io/saturate/cards/a/',
      'https://me.github.io/saturate/cards/b/',
    ]);
    expect(sitemapUrls('https://saturate.example', '/', ['about/'])).toEqual(['https://saturate.example/about/']);
  });
});

describe('the _headers file', () => {
  const rules = parseHeadersFile(headersFile(headerRules('/saturate/')));

  test('reads back as written', () => {
    expect(rules).toEqual(headerRules('/saturate/'));
  });

  test('revalidates the worker and the manifest, caches hashed assets for good', () => {
    expect(headersFor(rules, '/saturate/sw.js')).toEqual({ 'Cache-Control': REVALIDATE });
    expect(headersFor(rules, '/saturate/manifest.webmanifest')).toMatchObject({
      'Content-Type': 'application/manifest+json',
      'Cache-Control': REVALIDATE,
    });
    expect(headersFor(rules, '/saturate/_astro/Base.DixDwtkP.css')).toEqual({ 'Cache-Control': IMMUTABLE });
  });

  test('never marks a page, the question bank or the search entry immutable', () => {
    for (const path of [
      '/saturate/',
      '/saturate/cards/gpu-util/',
      '/saturate/bank.json',
      '/saturate/pagefind/pagefind.js',
    ])
      expect(headersFor(rules, path)['Cache-Control'] ?? '').not.toContain('immutable');
  });

  test('a rule for another base matches nothing here', () => {
    expect(headersFor(parseHeadersFile(headersFile(headerRules('/'))), '/saturate/sw.js')).toEqual({});
  });

  test('a malformed line is an error that names it', () => {
    expect(() => parseHeadersFile('  Cache-Control: x\n')).toThrow(/line 1/);
  });
});

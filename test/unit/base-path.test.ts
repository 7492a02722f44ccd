import { describe, expect, test } from 'vitest';
import { normaliseBasePath, withBase, withoutBase } from '../../src/lib/base-path.ts';
import { labServerCommand } from '../../src/lib/lab/command.ts';

describe('normaliseBasePath', () => {
  test('defaults to the root and adds the slashes a sub-path needs', () => {
    expect(normaliseBasePath(undefined)).toBe('/');
    expect(normaliseBasePath('')).toBe('/');
    expect(normaliseBasePath('/')).toBe('/');
    expect(normaliseBasePath('saturate')).toBe('/saturate/');
    expect(normaliseBasePath('/saturate')).toBe('/saturate/');
    expect(normaliseBasePath('/a//b/')).toBe('/a/b/');
  });

  test('refuses a URL or a path that climbs, saying what to pass', () => {
    expect(() => normaliseBasePath('https://me.github.io/saturate/')).toThrow(/pass only its path.*SITE_URL/);
    expect(() => normaliseBasePath('//cdn.example/x')).toThrow(/BASE_PATH=\/saturate\//);
    expect(() => normaliseBasePath('/a/../b')).toThrow(/not a plain path/);
    expect(() => normaliseBasePath('/a?b')).toThrow(/not a plain path/);
  });
});

describe('withBase', () => {
  test('puts site paths under the base', () => {
    expect(withBase('/', '/saturate/')).toBe('/saturate/');
    expect(withBase('/cards/gpu-util/', '/saturate/')).toBe('/saturate/cards/gpu-util/');
    expect(withBase('/review/?mode=retake', '/saturate/')).toBe('/saturate/review/?mode=retake');
    expect(withBase('bank.json', '/saturate')).toBe('/saturate/bank.json');
    expect(withBase('/topics/', '/')).toBe('/topics/');
  });

  test('leaves full URLs, hashes and queries alone', () => {
    expect(withBase('https://arxiv.org/abs/1', '/saturate/')).toBe('https://arxiv.org/abs/1');
    expect(withBase('//cdn.example/x', '/saturate/')).toBe('//cdn.example/x');
    expect(withBase('#quiz', '/saturate/')).toBe('#quiz');
    expect(withBase('?q=x', '/saturate/')).toBe('?q=x');
  });

  test('uses the build base ("/" under vitest) when none is given', () => {
    expect(withBase('/search/')).toBe('/search/');
  });
});

describe('withoutBase', () => {
  test('gives the route of a URL path under the base', () => {
    expect(withoutBase('/saturate/cards/x/', '/saturate/')).toBe('/cards/x/');
    expect(withoutBase('/saturate/', '/saturate/')).toBe('/');
    expect(withoutBase('/saturate', '/saturate/')).toBe('/');
    expect(withoutBase('/cards/x/', '/')).toBe('/cards/x/');
  });
});

describe('labServerCommand', () => {
  test('names the hosted origin, without its path', () => {
    expect(labServerCommand('https://me.github.io')).toBe('npm start -- --allow-origin https://me.github.io');
    expect(labServerCommand('https://127.0.0.1:8443')).toBe('npm start -- --allow-origin https://127.0.0.1:8443');
    expect(labServerCommand('http://192.168.1.20:4321')).toBe('npm start -- --allow-origin http://192.168.1.20:4321');
  });

  test('is not needed on the lab server’s own page or outside http(s)', () => {
    expect(labServerCommand('http://127.0.0.1:8790')).toBeNull();
    expect(labServerCommand('http://localhost:8790')).toBeNull();
    expect(labServerCommand('file://')).toBeNull();
    expect(labServerCommand('not a url')).toBeNull();
  });
});

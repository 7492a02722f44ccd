/** server/nvml/ is the binding alone: it imports Node, koffi, its own files and src/ (protocol types, pure helpers), never the rest of the server. */
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';

const dir = new URL('../../server/nvml/', import.meta.url);

describe('server/nvml layering', () => {
  test('imports nothing else of the server', () => {
    const offending: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const [, spec] of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)) {
        const ok =
          spec!.startsWith('node:') || spec === 'koffi' || spec!.startsWith('./') || spec!.startsWith('../../src/');
        if (!ok) offending.push(`${file}: ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });
});

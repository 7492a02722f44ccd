import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { SYNC_FLAG_KEY } from '../../src/store/sync-flag.ts';

test('the write path checks the same signed-in key that signing in writes', () => {
  const writer = readFileSync(new URL('../../src/client/progress-writer.ts', import.meta.url), 'utf8');
  expect(writer).toContain(`localStorage.getItem('${SYNC_FLAG_KEY}')`);
});

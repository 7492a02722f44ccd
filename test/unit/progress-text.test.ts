import { describe, expect, test } from 'vitest';
import { longDay } from '../../src/lib/progress-text.ts';

describe('longDay', () => {
  test('spells every day of three years as the en-GB date formatter does', () => {
    const intl = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2029, 0, 1); t += 86_400_000) {
      const iso = new Date(t).toISOString().slice(0, 10);
      expect(longDay(iso), iso).toBe(intl.format(new Date(`${iso}T12:00:00Z`)));
    }
  });
});

import { describe, expect, test } from 'vitest';
import { clockTime, hourOfDay, usableLocale } from '../../src/lib/locale.ts';
import { reviewWhen } from '../../src/lib/quiz-results.ts';
import { dayStartLabel } from '../../src/lib/rhythm.ts';

const early = Date.parse('2026-03-28T01:08:00Z');
const late = Date.parse('2026-03-28T13:08:00Z');

describe('clockTime', () => {
  test('en-US: 12 hours with AM/PM and no leading zero ("1:08 AM", never "01:08 AM")', () => {
    expect(clockTime(early, 'en-US', 'UTC')).toMatch(/^1:08\sAM$/);
    expect(clockTime(late, 'en-US', 'UTC')).toMatch(/^1:08\sPM$/);
  });
  test('en-GB and de-DE: 24 hours, no AM/PM', () => {
    for (const tag of ['en-GB', 'de-DE']) {
      expect(clockTime(early, tag, 'UTC'), tag).toBe('01:08');
      expect(clockTime(late, tag, 'UTC'), tag).toBe('13:08');
    }
  });
  test('a locale Intl rejects ("C") falls back to en-US', () => {
    expect(usableLocale('C')).toBe('en-US');
    expect(clockTime(early, 'C', 'UTC')).toMatch(/^1:08\sAM$/);
  });
});

describe('times in progress texts follow the locale', () => {
  test('a review due at 1:08 in the morning reads "1:08 AM" in en-US and "01:08" in en-GB and de-DE', () => {
    const now = new Date(2026, 2, 28, 0, 30).getTime();
    const due = new Date(2026, 2, 28, 1, 8).getTime();
    expect(reviewWhen(due, now, 'en-US')).toMatch(/^today at 1:08\sAM$/);
    expect(reviewWhen(due, now, 'en-GB')).toBe('today at 01:08');
    expect(reviewWhen(due, now, 'de-DE')).toBe('today at 01:08');
  });
  test('the hour a new day starts, as the settings list it', () => {
    expect(hourOfDay(16, 'en-US')).toMatch(/^4:00\sPM$/);
    expect(dayStartLabel(4, 'en-US')).toMatch(/^4:00\sAM \(default, as Anki\)$/);
    expect(dayStartLabel(0, 'en-GB')).toBe('00:00 (midnight)');
    expect(dayStartLabel(16, 'de-DE')).toBe('16:00');
  });
});

/**
 * 12 weeks of activity as a table: a row per weekday, a column per week, each cell saying in words
 * what was done that day (screen readers read the cell; the dot's size and shade show the level).
 */
import type { Stats } from '../../lib/stats.ts';
import { longDay, plural, WEEKDAY_SHORT } from '../../lib/progress-text.ts';

type Day = Stats['heatmap'][number];

/** Cell text: "Monday 30 March: 12 answers, 1 card read". */
function dayText(d: Day): string {
  const parts = [`${d.answers} ${d.answers === 1 ? 'answer' : 'answers'}`];
  if (d.cardsRead) parts.push(`${d.cardsRead} ${d.cardsRead === 1 ? 'card' : 'cards'} read`);
  return `${longDay(d.day)}: ${d.answers || d.cardsRead ? parts.join(', ') : 'nothing'}`;
}

export function Heatmap({ days }: { days: Stats['heatmap'] }) {
  // Columns start on Monday: pad the first week so rows line up with weekdays.
  const pad = days[0]?.weekday ?? 0;
  const cells: (Day | null)[] = [...Array<null>(pad).fill(null), ...days];
  while (cells.length % 7) cells.push(null);
  const weeks = cells.length / 7;
  const active = days.filter((d) => d.answers || d.cardsRead).length;
  return (
    <>
      <table className="heatmap" data-testid="heatmap">
        <caption className="sr-only">
          Activity in the last 12 weeks: one row per weekday, one column per week, oldest first
        </caption>
        <thead>
          <tr>
            <td />
            {Array.from({ length: weeks }, (_, w) => {
              const first = cells.slice(w * 7, w * 7 + 7).find((c) => c);
              return (
                <th key={w} scope="col">
                  <span className="sr-only">Week of {first ? longDay(first.day) : ''}</span>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {WEEKDAY_SHORT.map((name, row) => (
            <tr key={name}>
              <th scope="row">{row % 2 === 0 ? name : <span className="sr-only">{name}</span>}</th>
              {Array.from({ length: weeks }, (_, w) => {
                const d = cells[w * 7 + row];
                if (!d)
                  return (
                    <td key={w} data-future="" aria-hidden="true">
                      <span />
                    </td>
                  );
                return (
                  <td key={w} data-level={d.level} title={dayText(d)}>
                    <span />
                    <span className="sr-only">{dayText(d)}</span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="legend" aria-label="Legend">
        <li>Bigger, darker dot = more done that day (answers + cards read: 1–4, 5–14, 15–29, 30+)</li>
        <li>{plural(active, 'active day')} in 12 weeks</li>
      </ul>
    </>
  );
}

/**
 * The progress page's tables (src/components/ProgressDashboard.astro): the 12-week heatmap, a row per
 * weekday and a column per week with each cell saying in words what was done that day (the dot's size and
 * shade show the level); accuracy and cards read per topic with the weakest topics; reviews due per day.
 */
import type { Stats } from '../lib/stats.ts';
import { longDay, percent, plural, WEEKDAY_SHORT } from '../lib/progress-text.ts';
import { withBase } from '../lib/base-path.ts';
import { h, srOnly } from './progress-dom.ts';

type Day = Stats['heatmap'][number];

/** Cell text: "Monday 30 March: 12 answers, 1 card read". */
function dayText(d: Day): string {
  const parts = [`${d.answers} ${d.answers === 1 ? 'answer' : 'answers'}`];
  if (d.cardsRead) parts.push(`${d.cardsRead} ${d.cardsRead === 1 ? 'card' : 'cards'} read`);
  return `${longDay(d.day)}: ${d.answers || d.cardsRead ? parts.join(', ') : 'nothing'}`;
}

/** The heatmap table and its legend. */
export function heatmap(days: Stats['heatmap']): Node[] {
  // Columns start on Monday: pad the first week so rows line up with weekdays.
  const pad = days[0]?.weekday ?? 0;
  const cells: (Day | null)[] = [...Array<null>(pad).fill(null), ...days];
  while (cells.length % 7) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, w) => w);
  const active = days.filter((d) => d.answers || d.cardsRead).length;
  const head = h(
    'tr',
    {},
    h('td'),
    ...weeks.map((w) => {
      const first = cells.slice(w * 7, w * 7 + 7).find((c) => c);
      return h('th', { scope: 'col' }, srOnly(`Week of ${first ? longDay(first.day) : ''}`));
    }),
  );
  const rows = WEEKDAY_SHORT.map((name, row) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, row % 2 === 0 ? name : srOnly(name)),
      ...weeks.map((w) => {
        const d = cells[w * 7 + row];
        if (!d) return h('td', { 'data-future': '', 'aria-hidden': 'true' }, h('span'));
        return h('td', { 'data-level': d.level, title: dayText(d) }, h('span'), srOnly(dayText(d)));
      }),
    ),
  );
  const table = h(
    'table',
    { class: 'heatmap', 'data-testid': 'heatmap' },
    h(
      'caption',
      { class: 'sr-only' },
      'Activity in the last 12 weeks: one row per weekday, one column per week, oldest first',
    ),
    h('thead', {}, head),
    h('tbody', {}, ...rows),
  );
  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    h('li', {}, 'Bigger, darker dot = more done that day (answers + cards read: 1–4, 5–14, 15–29, 30+)'),
    h('li', {}, `${plural(active, 'active day')} in 12 weeks`),
  );
  return [table, legend];
}

/** Topic ids and titles, in deck order. */
export interface TopicInfo {
  id: string;
  title: string;
}

/** The per-topic table and the weakest topics, each with a link to study it. */
export function topicTable(topics: Stats['topics'], weakest: Stats['weakest'], names: TopicInfo[]): Node[] {
  const title = (id: string) => names.find((t) => t.id === id)?.title ?? id;
  const topicLink = (id: string, text: string) => h('a', { href: withBase(`/topics/${id}/`) }, text);
  const table = h(
    'table',
    { class: 'data-table', 'data-testid': 'topics' },
    h('caption', { class: 'sr-only' }, "Answers, share right, and cards read (of the topic's cards) per topic"),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Topic'),
        h('th', { scope: 'col', class: 'num' }, 'Answers'),
        h('th', { scope: 'col', class: 'num' }, 'Right'),
        h('th', { scope: 'col', class: 'num' }, 'Cards'),
      ),
    ),
    h(
      'tbody',
      {},
      ...topics.map((t) =>
        h(
          'tr',
          { 'data-topic': t.topic },
          h('th', { scope: 'row' }, topicLink(t.topic, title(t.topic))),
          h('td', { class: 'num' }, t.answered),
          h('td', { class: 'num' }, percent(t.accuracy)),
          h('td', { class: 'num' }, t.cardsTotal === null ? t.cardsRead : `${t.cardsRead} of ${t.cardsTotal}`),
        ),
      ),
    ),
  );
  const weak =
    weakest.length === 0
      ? h('p', { class: 'muted' }, 'None yet: a topic needs 5 answers before it can be called weak.')
      : h(
          'ul',
          { class: 'plain-list', 'data-testid': 'weakest' },
          ...weakest.map((t) =>
            h(
              'li',
              {},
              `${title(t.topic)}: ${percent(t.accuracy)} right of ${t.answered}. `,
              topicLink(t.topic, `Study ${title(t.topic)}`),
            ),
          ),
        );
  return [table, h('h3', {}, 'Weakest topics'), weak];
}

/** "N reviews in the next 7 days", a link to review today's, and the days with any due. */
export function reviewsDue(due: Stats['reviewsDue']): Node[] {
  const total = due.reduce((t, d) => t + d.count, 0);
  const today = due[0]?.count ?? 0;
  const sentence = h(
    'p',
    { 'data-testid': 'due-total' },
    `${plural(total, 'review')} in the next 7 days. `,
    today > 0 && h('a', { href: withBase('/review/') }, `Review ${today} now`),
  );
  if (total === 0)
    return [
      sentence,
      h(
        'p',
        { class: 'muted', 'data-testid': 'due-none' },
        'Questions you answer come back here on the day they are due.',
      ),
    ];
  const table = h(
    'table',
    { class: 'data-table', 'data-testid': 'due-days' },
    h('caption', { class: 'sr-only' }, 'Reviews due per day, next 7 days (days with none left out)'),
    h(
      'tbody',
      {},
      ...due.flatMap((d, i) =>
        d.count > 0
          ? [
              h(
                'tr',
                {},
                h('th', { scope: 'row' }, i === 0 ? 'Today (and overdue)' : longDay(d.day)),
                h('td', { class: 'num' }, d.count),
              ),
            ]
          : [],
      ),
    ),
  );
  return [sentence, table];
}

/** Accuracy and cards read per topic, and the weakest topics with a link to study each. */
import type { Stats } from '../../lib/stats.ts';
import { percent } from '../../lib/progress-text.ts';
import { withBase } from '../../lib/base-path.ts';

export interface TopicInfo {
  id: string;
  title: string;
}

export function TopicTable({
  topics,
  weakest,
  names,
}: {
  topics: Stats['topics'];
  weakest: Stats['weakest'];
  names: TopicInfo[];
}) {
  const title = (id: string) => names.find((t) => t.id === id)?.title ?? id;
  return (
    <>
      <table className="data-table" data-testid="topics">
        <caption className="sr-only">Answers, share right, and cards read (of the topic's cards) per topic</caption>
        <thead>
          <tr>
            <th scope="col">Topic</th>
            <th scope="col" className="num">
              Answers
            </th>
            <th scope="col" className="num">
              Right
            </th>
            <th scope="col" className="num">
              Cards
            </th>
          </tr>
        </thead>
        <tbody>
          {topics.map((t) => (
            <tr key={t.topic} data-topic={t.topic}>
              <th scope="row">
                <a href={withBase(`/topics/${t.topic}/`)}>{title(t.topic)}</a>
              </th>
              <td className="num">{t.answered}</td>
              <td className="num">{percent(t.accuracy)}</td>
              <td className="num">{t.cardsTotal === null ? t.cardsRead : `${t.cardsRead} of ${t.cardsTotal}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Weakest topics</h3>
      {weakest.length === 0 ? (
        <p className="muted">None yet: a topic needs 5 answers before it can be called weak.</p>
      ) : (
        <ul className="plain-list" data-testid="weakest">
          {weakest.map((t) => (
            <li key={t.topic}>
              {title(t.topic)}: {percent(t.accuracy)} right of {t.answered}.{' '}
              <a href={withBase(`/topics/${t.topic}/`)}>Study {title(t.topic)}</a>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

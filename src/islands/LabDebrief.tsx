/**
 * A lab's debrief: locked until every step passes, then its quiz. One "Debrief" heading either way: the
 * locked note has its own, the quiz's title is the heading once it shows.
 */
import type { LabView } from '../lib/lab/run.ts';
import type { QuizQuestion } from '../lib/quiz.ts';
import Quiz from './Quiz.tsx';

interface Props {
  lab: Pick<LabView, 'id' | 'title'>;
  debrief: QuizQuestion[];
  unlocked: boolean;
}

export function LabDebrief({ lab, debrief, unlocked }: Props) {
  if (!unlocked)
    return (
      <section aria-labelledby="lab-debrief-h" id="debrief">
        <h2 id="lab-debrief-h">Debrief</h2>
        <p className="muted">
          Pass every step to unlock {debrief.length} questions. Your answers join your review queue.
        </p>
      </section>
    );
  return (
    <section id="debrief">
      <Quiz
        title="Debrief"
        quizId={`lab:${lab.id}`}
        context="lab"
        questions={debrief}
        seed={lab.id}
        links={[{ href: '/labs/', label: 'All labs' }]}
        resume={{ title: `Lab debrief: ${lab.title}`, href: `/labs/${lab.id}/#debrief` }}
      />
    </section>
  );
}

/**
 * A lab's debrief: locked until every step passes, then its quiz. One "Debrief" heading either way: the
 * locked note has its own, the quiz's title is the heading once it shows. A lab with a PyTorch workload also
 * links its run's profiler trace to /trace/, locked or not: the trace is worth reading whether or not the
 * checks passed.
 */
import type { LabView } from '../lib/lab/run.ts';
import type { QuizQuestion } from '../lib/quiz.ts';
import { withBase } from '../lib/base-path.ts';
import Quiz from './Quiz.tsx';

interface Props {
  lab: Pick<LabView, 'id' | 'title'> & { workload?: string | null };
  debrief: QuizQuestion[];
  unlocked: boolean;
}

/** "Analyse the trace of your run" and where the workload writes it (workloads/_common.py, --profile DIR). */
export function TraceLink({ workload }: { workload: string }) {
  return (
    <p className="lab-trace" data-testid="lab-trace">
      <a href={withBase('/trace/')}>Analyse the trace of your run</a>: add <code>--profile traces</code> to the
      workload&apos;s command (<code>python {workload} … --profile traces</code>); it records a few steps with
      torch.profiler and writes <code>traces/&lt;run&gt;.pt.trace.json.gz</code> (the path is printed). Open that file
      on the trace page: it is read on this device, nothing is uploaded.
    </p>
  );
}

export function LabDebrief({ lab, debrief, unlocked }: Props) {
  const trace = lab.workload ? <TraceLink workload={lab.workload} /> : null;
  if (!unlocked)
    return (
      <section aria-labelledby="lab-debrief-h" id="debrief">
        <h2 id="lab-debrief-h">Debrief</h2>
        <p className="muted">
          Pass every step to unlock {debrief.length} questions. Your answers join your review queue.
        </p>
        {trace}
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
      {trace}
    </section>
  );
}

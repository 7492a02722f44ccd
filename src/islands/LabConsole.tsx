/**
 * The lab page's island: connect panel, step list with live checks, live charts, the diagnosis,
 * the session download and, once every step passes, the debrief quiz. Three ways to run on the
 * same page: the simulator in this page, the lab server's simulation, or a real GPU via the server.
 *
 * State lives outside React: the session (src/lib/lab/session.ts: source, run, points, diagnosis,
 * what to announce) is read here with `useSyncExternalStore`; the runner (src/client/lab-runner.ts)
 * starts the sources, emits 'saturate:lab-done' on completion and remembers the unlocked debrief.
 * This component only renders the session and forwards the learner's actions.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { LabView } from '../lib/lab/run.ts';
import { createLabSession } from '../lib/lab/session.ts';
import { idleCostBox } from '../lib/lab/cost.ts';
import { isWatchOnly } from '../lib/lab/connection.ts';
import { LIVE_VIEW_ANCHOR } from '../lib/fleet-view.ts';
import type { QuizQuestion } from '../lib/quiz.ts';
import { createLabRunner } from '../client/lab-runner.ts';
import LabConnect from './LabConnect.tsx';
import LabSteps from './LabSteps.tsx';
import LabChart from './LabChart.tsx';
import LabDiagnosis from './LabDiagnosis.tsx';
import { LabDebrief } from './LabDebrief.tsx';
import LabCost from './LabCost.tsx';

/** Props: the lab (Markdown pre-rendered) and its debrief in the quiz's shape. */
export interface LabConsoleProps {
  lab: LabView;
  debrief: QuizQuestion[];
}

/** The whole lab: source, steps, charts, diagnosis, download and debrief. */
export default function LabConsole({ lab, debrief }: LabConsoleProps) {
  const [{ session, runner }] = useState(() => {
    const model = createLabSession(lab);
    return { session: model, runner: createLabRunner(lab, model) };
  });
  const s = useSyncExternalStore(session.subscribe, session.get, session.get);
  useEffect(() => runner.open(), [runner]);
  const { dispatch } = session;
  const { points } = s;
  // Priced from the GPU's sourced list price (src/lib/gpu-prices.ts), the one the fleet page uses.
  const costBox = lab.cost ? idleCostBox(points, s.messages.at(-1)?.gpus[s.gpuIndex]?.name ?? null) : null;
  // The host's cores as the lab server samples them (its own host, or its simulation's): lab texts name them.
  const hostCores = s.source?.kind === 'server' ? (s.messages.at(-1)?.host?.perCorePct.length ?? null) : null;
  // A fleet GPU runs someone else's job: its charts are to watch, its steps are not the learner's to pass.
  const watchOnly = isWatchOnly(s.source);

  return (
    <div className="lab-console">
      <p className="sr-only" role="status" aria-live="polite">
        {s.announce}
      </p>
      <LabConnect
        source={s.source}
        status={s.status}
        error={s.error}
        serverUrl={s.serverUrl}
        serverFirst={s.serverFirst}
        ownServer={s.ownServer}
        speed={s.speed}
        gpuIndex={s.gpuIndex}
        onServerUrl={(url) => dispatch({ type: 'server-url', url })}
        onStartSim={runner.startSim}
        onConnect={() => void runner.connect()}
        onStop={runner.stop}
        onSpeed={(speed) => dispatch({ type: 'speed', speed })}
        onGpu={(index) => dispatch({ type: 'gpu', index })}
      />
      <section aria-labelledby="lab-steps-h">
        <h2 id="lab-steps-h">Steps</h2>
        <LabSteps
          steps={lab.steps}
          index={s.run.index}
          result={s.result}
          source={s.source}
          fixApplied={s.fixApplied}
          onFix={runner.fix}
          hostCores={hostCores}
          watchOnly={watchOnly}
          fixFromMs={s.fixFromMs}
          stepStartedAtMs={s.run.startedAtMs}
          lastSampleMs={points.at(-1)?.tMs ?? null}
          serverUrl={s.source?.kind === 'server' ? s.serverUrl : null}
        />
        {s.run.index > 0 && !s.done && !watchOnly && (
          <div className="actions">
            <button type="button" className="button secondary" onClick={runner.startOver}>
              Start over from step 1
            </button>
          </div>
        )}
      </section>
      {s.done && !watchOnly && (
        <p className="lab-done" data-testid="lab-complete">
          Lab complete: every check passed. Your progress recorded it.
        </p>
      )}
      <section aria-labelledby="lab-charts-h" id={LIVE_VIEW_ANCHOR} tabIndex={-1}>
        <h2 id="lab-charts-h">Live metrics</h2>
        {lab.charts.map((c) => (
          <LabChart key={c.title} title={c.title} metrics={c.metrics} thresholds={c.thresholds} points={points} />
        ))}
        {costBox && <LabCost box={costBox} />}
      </section>
      <LabDiagnosis d={s.diagnosis} />
      <div className="actions">
        <button type="button" className="button secondary" onClick={runner.download} disabled={points.length === 0}>
          Download this session (NDJSON)
        </button>
      </div>
      <LabDebrief lab={lab} debrief={debrief} unlocked={s.unlocked} />
    </div>
  );
}

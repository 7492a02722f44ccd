/**
 * The lab's steps with each check's live state: the learner's turn, checking their change, passed, failing
 * (only once they acted and a full window after it still fails: src/lib/lab/step-state.ts), waiting for its
 * window, or "can't tell" (a metric this source does not give). The live step shows the fix control where a
 * simulation plays the data (in this page, or the lab server's simulation, which the page changes
 * through its API), or the command to run on a real GPU. State is spelled out in text, never by colour alone.
 */
import { checkSpanS, type CheckResult, type CheckState } from '../lib/checks.ts';
import { SHOWN_TEXT, shownStepState, type ShownState } from '../lib/lab/step-state.ts';
import type { LabView } from '../lib/lab/run.ts';
import type { SourceInfo } from '../lib/lab/session.ts';
import { fillHostCores } from '../lib/lab/connection.ts';
import { runCommand } from '../lib/lab/command.ts';

export interface LabStepsProps {
  steps: LabView['steps'];
  /** Index of the live step (steps.length when done). */
  index: number;
  /** The live step's result. */
  result: CheckResult | null;
  source: SourceInfo | null;
  /** Whether the live step's fix is applied (in-page simulator). */
  fixApplied: boolean;
  onFix: () => void;
  /** The host's logical cores as the lab server reports them; null when no server is connected. */
  hostCores: number | null;
  /** A GPU of someone else's job (a fleet GPU): the steps are shown to watch by, not judged or acted on. */
  watchOnly?: boolean;
  /** The last sample before the live step's fix took effect, ms; null while it is not applied. */
  fixFromMs?: number | null;
  /** When the live step became live, ms (sample time). */
  stepStartedAtMs?: number | null;
  /** The newest sample's time, ms. */
  lastSampleMs?: number | null;
  /** The connected lab server's URL with its token: a workload's run command names it (`--url`). */
  serverUrl?: string | null;
}

const STATE_TEXT: Record<CheckState, string> = {
  pass: 'Passing',
  fail: 'Not yet: failing',
  waiting: 'Collecting samples',
  unknown: "Can't tell",
};

/** A part's badge: before the learner's change is judged, a failing part is "Not yet", not red. */
function partBadge(state: CheckState, judged: boolean): { state: string; text: string } {
  return state === 'fail' && !judged ? { state: 'neutral', text: 'Not yet' } : { state, text: STATE_TEXT[state] };
}

function ResultTree({ r, judged }: { r: CheckResult; judged: boolean }) {
  if (r.children.length === 0) return <span>{r.text}</span>;
  return (
    <ul className="lab-check-parts">
      {r.children.map((c, i) => {
        const b = partBadge(c.state, judged);
        return (
          <li key={i} data-state={b.state}>
            <span className="lab-badge" data-state={b.state}>
              {b.text}
            </span>{' '}
            <ResultTree r={c} judged={judged} />
          </li>
        );
      })}
    </ul>
  );
}

/** The ordered step list with each live check's state and the fix control. */
export default function LabSteps(props: LabStepsProps) {
  if (props.watchOnly) return <WatchSteps steps={props.steps} hostCores={props.hostCores} />;
  return <LiveSteps {...props} />;
}

/** A fleet GPU's steps: what to look for in its charts, with nothing to pass, fix or run. */
/** A step's heading with its state badge, its instruction and what its check looks for (watch-only and live). */
function StepText(p: {
  step: LabStepsProps['steps'][number];
  n: number;
  state: string;
  label: string;
  checkLabel: string;
  hostCores: LabStepsProps['hostCores'];
}) {
  return (
    <>
      <h3>
        <span className="lab-step-n">{p.n}.</span> {p.step.title}{' '}
        <span className="lab-badge" data-state={p.state} data-testid={`step-state-${p.step.id}`}>
          {p.label}
        </span>
      </h3>
      <div
        className="lab-instruction"
        dangerouslySetInnerHTML={{ __html: fillHostCores(p.step.instructionHtml, p.hostCores) }}
      />
      <p className="lab-check">
        <span className="muted">{p.checkLabel}</span> {p.step.checkText}
      </p>
    </>
  );
}

function WatchSteps({ steps, hostCores }: Pick<LabStepsProps, 'steps' | 'hostCores'>) {
  return (
    <>
      <p className="lab-watch-note" data-testid="lab-watch-only">
        <strong>Watch only.</strong> This GPU runs someone else's job on your fleet: compare its charts with what each
        step looks for. The checks, fixes and commands are for a run of your own (start the simulation, or your lab
        server on your GPU).
      </p>
      <ol className="lab-steps">
        {steps.map((s, i) => (
          <li key={s.id} className="lab-step" data-step={s.id} data-state="watch">
            <StepText
              step={s}
              n={i + 1}
              state="watch"
              label="Watch"
              checkLabel="What it looks for:"
              hostCores={hostCores}
            />
          </li>
        ))}
      </ol>
    </>
  );
}

function LiveSteps(p: LabStepsProps) {
  const { steps, index, result, source, fixApplied, onFix, hostCores } = p;
  return (
    <ol className="lab-steps">
      {steps.map((s, i) => {
        const live = i === index && source !== null;
        const shown: ShownState | null = live
          ? shownStepState({
              result,
              fixable: source !== null && source.control !== 'none' && s.fix !== null,
              fixFromMs: p.fixFromMs ?? null,
              stepStartedAtMs: p.stepStartedAtMs ?? null,
              lastSampleMs: p.lastSampleMs ?? null,
              windowS: checkSpanS(s.check),
            })
          : null;
        const state = i < index ? 'done' : (shown ?? 'pending');
        const label =
          i < index ? 'Passed' : shown ? SHOWN_TEXT[shown] : i === index ? 'Next: start a source above' : 'Not started';
        return (
          <li
            key={s.id}
            className="lab-step"
            data-step={s.id}
            data-state={state}
            aria-current={i === index ? 'step' : undefined}
          >
            <StepText step={s} n={i + 1} state={state} label={label} checkLabel="Check:" hostCores={hostCores} />
            {live && result && (
              <div className="lab-result" data-state={shown === 'fail' || shown === 'pass' ? shown : 'neutral'}>
                <ResultTree r={result} judged={shown === 'fail' || shown === 'pass'} />
              </div>
            )}
            {live && source?.control !== 'none' && s.fix && (
              <div className="actions">
                <button
                  type="button"
                  className="button"
                  onClick={onFix}
                  disabled={fixApplied}
                  aria-pressed={fixApplied}
                >
                  {fixApplied ? `Applied: ${s.fix.label}` : s.fix.label}
                </button>
              </div>
            )}
            {live && source?.kind === 'server' && source.control === 'server' && s.fix && (
              <p className="muted">The lab server's simulation applies it: no restart needed.</p>
            )}
            {live && source?.control === 'none' && s.run && (
              <p>
                Run: <code>{runCommand(s.run, p.serverUrl ?? null)}</code>
              </p>
            )}
            <details className="lab-hint">
              <summary>Hint</summary>
              <div dangerouslySetInnerHTML={{ __html: fillHostCores(s.hintHtml, hostCores) }} />
            </details>
          </li>
        );
      })}
    </ol>
  );
}

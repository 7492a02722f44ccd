/**
 * The lab's steps with each check's live state: passed, failing, waiting for its window, or
 * "can't tell" (a metric this source does not give). The live step shows the fix control where a
 * simulation plays the data (in this page, or the lab server's simulation, which the page changes
 * through its API), or the command to run on a real GPU. State is spelled out in text, never by colour alone.
 */
import type { CheckResult, CheckState } from '../lib/checks.ts';
import type { LabView } from '../lib/lab/run.ts';
import type { SourceInfo } from '../lib/lab/session.ts';
import { fillHostCores } from '../lib/lab/connection.ts';

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
}

const STATE_TEXT: Record<CheckState, string> = {
  pass: 'Passing',
  fail: 'Not yet: failing',
  waiting: 'Collecting samples',
  unknown: "Can't tell",
};

function ResultTree({ r }: { r: CheckResult }) {
  if (r.children.length === 0) return <span>{r.text}</span>;
  return (
    <ul className="lab-check-parts">
      {r.children.map((c, i) => (
        <li key={i} data-state={c.state}>
          <span className="lab-badge" data-state={c.state}>
            {STATE_TEXT[c.state]}
          </span>{' '}
          <ResultTree r={c} />
        </li>
      ))}
    </ul>
  );
}

/** The ordered step list with each live check's state and the fix control. */
export default function LabSteps(props: LabStepsProps) {
  if (props.watchOnly) return <WatchSteps steps={props.steps} hostCores={props.hostCores} />;
  return <LiveSteps {...props} />;
}

/** A fleet GPU's steps: what to look for in its charts, with nothing to pass, fix or run. */
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
            <h3>
              <span className="lab-step-n">{i + 1}.</span> {s.title}{' '}
              <span className="lab-badge" data-state="watch" data-testid={`step-state-${s.id}`}>
                Watch
              </span>
            </h3>
            <div
              className="lab-instruction"
              dangerouslySetInnerHTML={{ __html: fillHostCores(s.instructionHtml, hostCores) }}
            />
            <p className="lab-check">
              <span className="muted">What it looks for:</span> {s.checkText}
            </p>
          </li>
        ))}
      </ol>
    </>
  );
}

function LiveSteps({ steps, index, result, source, fixApplied, onFix, hostCores }: LabStepsProps) {
  return (
    <ol className="lab-steps">
      {steps.map((s, i) => {
        const live = i === index && source !== null;
        const state = i < index ? 'done' : live ? (result?.state ?? 'waiting') : 'pending';
        const label =
          i < index
            ? 'Passed'
            : live
              ? STATE_TEXT[result?.state ?? 'waiting']
              : i === index
                ? 'Next: start a source above'
                : 'Not started';
        return (
          <li
            key={s.id}
            className="lab-step"
            data-step={s.id}
            data-state={state}
            aria-current={i === index ? 'step' : undefined}
          >
            <h3>
              <span className="lab-step-n">{i + 1}.</span> {s.title}{' '}
              <span className="lab-badge" data-state={state} data-testid={`step-state-${s.id}`}>
                {label}
              </span>
            </h3>
            <div
              className="lab-instruction"
              dangerouslySetInnerHTML={{ __html: fillHostCores(s.instructionHtml, hostCores) }}
            />
            <p className="lab-check">
              <span className="muted">Check:</span> {s.checkText}
            </p>
            {live && result && (
              <div className="lab-result" data-state={result.state}>
                <ResultTree r={result} />
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
                Run: <code>{s.run}</code>
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

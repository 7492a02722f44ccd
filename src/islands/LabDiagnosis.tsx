/**
 * The diagnosis panel: the likely bottleneck in the last 30 s, the evidence, the next thing to
 * try and the card that explains it; for "can't tell", the reading that would decide it.
 */
import type { Diagnosis } from '../lib/diagnose/index.ts';
import { withBase } from '../lib/base-path.ts';

/** The diagnosis panel for the last 30 s of samples. */
export default function LabDiagnosis({ d }: { d: Diagnosis | null }) {
  return (
    <section className="lab-panel lab-diagnosis" aria-labelledby="lab-diag-h" data-kind={d?.kind ?? 'none'}>
      <h2 id="lab-diag-h">Diagnosis</h2>
      {!d ? (
        <p className="muted">Start a source to see what limits this GPU.</p>
      ) : (
        <>
          <p className="lab-diag-title">
            <strong>{d.title}</strong>{' '}
            <span className="muted">
              ({d.confidence} confidence{d.gpus.length > 1 ? `, GPUs ${d.gpus.join(', ')}` : ''})
            </span>
          </p>
          {d.evidence.length > 0 && (
            <ul className="lab-evidence" aria-label="Evidence">
              {d.evidence.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          )}
          {d.decide && (
            <p>
              <span className="muted">What would decide it:</span> {d.decide}
            </p>
          )}
          <p>
            <span className="muted">Next:</span> {d.next}
          </p>
          <p>
            <a href={withBase(`/cards/${d.cardId}/`)}>Read the card that explains it</a>
          </p>
        </>
      )}
    </section>
  );
}

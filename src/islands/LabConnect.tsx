/**
 * The connect panel: run the simulator in this page, or paste the lab server's URL (with its
 * token, remembered on this device). The banner says plainly whether the data is REAL or
 * SIMULATED and from which GPU.
 */
import { useId, useState } from 'react';
import type { LabSession, SourceInfo } from '../lib/lab/session.ts';
import LabCommand from './LabCommand.tsx';
import { ownServerLine, simulatedSummary } from '../lib/lab/connection.ts';

/** What the panel shows, from the lab session (src/lib/lab/session.ts), and what it can do. */
export interface LabConnectProps extends Pick<
  LabSession,
  'source' | 'status' | 'error' | 'serverUrl' | 'serverFirst' | 'speed' | 'gpuIndex' | 'ownServer'
> {
  onServerUrl: (url: string) => void;
  onStartSim: () => void;
  onConnect: () => void;
  onStop: () => void;
  onSpeed: (speed: number) => void;
  onGpu: (index: number) => void;
}

/** "REAL GPU · NVIDIA A100 … via 127.0.0.1:8790" and friends. */
export function sourceBanner(s: SourceInfo, gpuIndex: number): { tag: 'REAL' | 'SIMULATED'; text: string } {
  const gpu = s.devices[gpuIndex]?.name ?? 'no GPU';
  if (s.kind === 'page-sim')
    return { tag: 'SIMULATED', text: `in this page, no server · ${gpu} (simulated) · ${s.source}` };
  const host = (s.origin ?? '').replace(/^https?:\/\//, '');
  // A fleet GPU whose series carry simulated="true": the lab server behind Prometheus simulates it.
  if (s.devices[gpuIndex]?.simulated)
    return {
      tag: 'SIMULATED',
      text: `${gpu} · a simulated GPU (its series carry simulated="true") · read from ${s.source} by the lab server at ${host}`,
    };
  return s.simulated
    ? {
        tag: 'SIMULATED',
        text: `${simulatedSummary(s.reason, s.source)} · ${gpu} · ${s.source} · by the lab server at ${host}`,
      }
    : { tag: 'REAL', text: `${gpu} · via the lab server at ${host} (${s.source})` };
}

/** The connect panel: start the in-page simulator or connect the lab server. */
export default function LabConnect(p: LabConnectProps) {
  const id = useId();
  const [toggled, setOpen] = useState<boolean | null>(null);
  const open = toggled ?? p.serverFirst;
  const banner = p.source ? sourceBanner(p.source, p.gpuIndex) : null;
  const simButton = (serverFirst: boolean) => (
    <button key="sim" type="button" className={serverFirst ? 'button secondary' : 'button'} onClick={p.onStartSim}>
      Start the simulation
    </button>
  );
  const serverButton = (serverFirst: boolean) => (
    <button
      key="server"
      type="button"
      className={serverFirst ? 'button' : 'button secondary'}
      aria-expanded={open}
      aria-controls={`${id}-server`}
      onClick={() => setOpen(!open)}
    >
      Use a lab server
    </button>
  );
  return (
    <section className="lab-panel lab-connect" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Data source</h2>
      {p.ownServer && (
        <p className="lab-own-server" data-testid="lab-own-server">
          {ownServerLine(p.ownServer, p.ownServer.origin)}
        </p>
      )}
      {banner && p.source ? (
        <>
          <p className="lab-banner" data-tag={banner.tag} role="status">
            <strong className="lab-tag">{banner.tag}</strong> <span>{banner.text}</span>
            {p.status ? (
              <span className="muted" data-testid="lab-status">
                {' '}
                · {p.status}
              </span>
            ) : null}
          </p>
          {p.source.kind === 'server' && p.source.reason && (
            <details className="lab-reason">
              <summary>Why simulated: the lab server's words</summary>
              <p>{p.source.reason}</p>
            </details>
          )}
          <div className="lab-controls">
            {p.source.kind === 'page-sim' && (
              <label>
                Speed{' '}
                <select value={p.speed} onChange={(e) => p.onSpeed(Number(e.target.value))}>
                  {[1, 2, 5, 10].map((s) => (
                    <option key={s} value={s}>
                      {s}×
                    </option>
                  ))}
                </select>
              </label>
            )}
            {p.source.devices.length > 1 && (
              <label>
                GPU{' '}
                <select value={p.gpuIndex} onChange={(e) => p.onGpu(Number(e.target.value))}>
                  {p.source.devices.map((d, i) => (
                    <option key={d.uuid} value={i}>
                      {i}: {d.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <button type="button" className="button secondary" onClick={p.onStop}>
              Stop
            </button>
          </div>
        </>
      ) : (
        <>
          <p>
            {p.ownServer
              ? p.status
                ? 'Connecting to it…'
                : 'Open the URL npm start printed (it ends in ?token=…) once, and every lab on this device connects to it by itself. The simulator in this page needs no server.'
              : 'No server needed: the simulator runs in this page, even offline. Or connect the lab server to use your own GPU.'}
          </p>
          {/* On its own lab server the server comes first; elsewhere the in-page simulator, which needs nothing. */}
          <div className="actions">
            {(p.ownServer ? [serverButton, simButton] : [simButton, serverButton]).map((b) => b(!!p.ownServer))}
          </div>
          <form
            id={`${id}-server`}
            hidden={!open}
            className="lab-server-form"
            onSubmit={(e) => {
              e.preventDefault();
              p.onConnect();
            }}
          >
            <label htmlFor={`${id}-url`}>Lab server URL, with its token</label>
            <p className="muted" id={`${id}-help`}>
              Run <code>npm start</code> on the GPU machine and paste the URL it prints (
              <code>http://127.0.0.1:8790/?token=…</code>). It is remembered on this device.
            </p>
            <div className="lab-url-row">
              <input
                id={`${id}-url`}
                type="url"
                inputMode="url"
                autoComplete="off"
                spellCheck={false}
                aria-describedby={`${id}-help`}
                value={p.serverUrl}
                onChange={(e) => p.onServerUrl(e.target.value)}
                placeholder="http://127.0.0.1:8790/?token=…"
              />
              <button type="submit" className="button">
                Connect
              </button>
            </div>
            {!p.ownServer && <LabCommand />}
          </form>
        </>
      )}
      {p.error && (
        <p className="error" role="alert">
          {p.error}
        </p>
      )}
    </section>
  );
}

/**
 * The lab page's side effects around its session (src/lib/lab-session.ts): starts and stops the
 * sources (lab-source.ts), remembers the server URL and a passed lab on this device
 * (localStorage), emits 'saturate:lab-done' once per run, and downloads the session. Holds the
 * one running source; everything shown is in the session. Browser-only; the lab island is the one user.
 */
import type { StreamMessage } from '../protocol/metrics.ts';
import { emit } from '../lib/events.ts';
import { toNdjson } from '../lib/lab-run.ts';
import { simPlay, type LabSessionModel } from '../lib/lab-session.ts';
import type { LabView } from '../lib/lab-run.ts';
import { connectServer, parseServerUrl, startPageSim, type RunningSource } from './lab-source.ts';
import { LAB_SERVER_KEY, remembered } from './remembered.ts';

/** Set once a lab passed on this device: its debrief stays unlocked. */
const doneKey = (id: string) => `saturate:lab-done:${id}`;

/** What the lab page can do. */
export interface LabRunner {
  /** Reads what the page URL and the device remember; returns the clean-up (stops the source). */
  open(): () => void;
  /** Starts the simulator in this page (a new run). */
  startSim(): void;
  /** Connects the lab server at the session's URL (a new run), or says why not. */
  connect(): Promise<void>;
  /** Stops the source; the run and its points stay. */
  stop(): void;
  /** Saves the session as NDJSON (replayable with `--source replay:FILE`). */
  download(): void;
}

/** The runner for `lab`'s page, acting on `session`. */
export function createLabRunner(lab: Pick<LabView, 'id' | 'steps'>, session: LabSessionModel): LabRunner {
  let running: RunningSource | null = null;
  const { dispatch } = session;

  const onMessage = (m: StreamMessage) => {
    const wasDone = session.get().done;
    dispatch({ type: 'message', message: m });
    const s = session.get();
    if (wasDone || !s.done) return;
    emit('saturate:lab-done', { labId: lab.id, passed: true, durationMs: Date.now() - s.startedAtMs, at: Date.now() });
    remembered.set(doneKey(lab.id), String(Date.now()));
  };

  /** Stops the source and starts a new run. */
  const restart = () => {
    running?.stop();
    running = null;
    dispatch({ type: 'restart', at: Date.now() });
  };

  const use = (src: RunningSource) => {
    running = src;
    dispatch({ type: 'started', info: src.info });
  };

  return {
    open() {
      const params = new URLSearchParams(location.search);
      const token = params.get('token');
      const fromUrl = params.get('server') ?? (token ? `${location.origin}/?token=${token}` : null);
      dispatch({
        type: 'opened',
        serverUrl: fromUrl ?? remembered.get(LAB_SERVER_KEY) ?? '',
        serverFirst: fromUrl !== null,
        unlocked: remembered.get(doneKey(lab.id)) !== null,
      });
      return () => running?.stop();
    },
    startSim() {
      restart();
      use(startPageSim(`lab-${lab.id}`, () => simPlay(lab, session.get()), onMessage));
    },
    async connect() {
      const url = session.get().serverUrl;
      let addr;
      try {
        addr = parseServerUrl(url);
      } catch (e) {
        dispatch({ type: 'error', message: (e as Error).message });
        return;
      }
      restart();
      dispatch({ type: 'status', text: 'connecting…' });
      try {
        const src = await connectServer(addr, onMessage, (text) => dispatch({ type: 'status', text }));
        remembered.set(LAB_SERVER_KEY, url.trim());
        use(src);
      } catch (e) {
        dispatch({ type: 'status', text: '' });
        dispatch({ type: 'error', message: (e as Error).message });
      }
    },
    stop() {
      running?.stop();
      running = null;
      dispatch({ type: 'stopped' });
    },
    download() {
      const blob = new Blob([toNdjson(session.get().messages)], { type: 'application/x-ndjson' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `saturate-${lab.id}-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    },
  };
}

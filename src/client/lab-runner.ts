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
  /** The device the page was opened for (`?gpu=<device name or UUID>`, from the fleet page), shown once connected. */
  let wantGpu: string | null = null;
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
    if (wantGpu === null || src.info.kind !== 'server') return;
    const want = wantGpu;
    wantGpu = null;
    const index = src.info.devices.findIndex((d) => d.name === want || d.uuid === want);
    if (index >= 0) dispatch({ type: 'gpu', index });
    else dispatch({ type: 'error', message: `This lab server has no GPU "${want}": showing GPU 0. Pick one below.` });
  };

  /** Connects the lab server at the session's URL (a new run), or says why not. */
  const connect = async (): Promise<void> => {
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
  };

  return {
    open() {
      const params = new URLSearchParams(location.search);
      const token = params.get('token');
      const fromUrl = params.get('server') ?? (token ? `${location.origin}/?token=${token}` : null);
      wantGpu = params.get('gpu');
      const serverUrl = fromUrl ?? remembered.get(LAB_SERVER_KEY) ?? '';
      dispatch({
        type: 'opened',
        serverUrl,
        serverFirst: fromUrl !== null || wantGpu !== null,
        unlocked: remembered.get(doneKey(lab.id)) !== null,
      });
      // Opened for one GPU (a fleet page link): connect at once and show it.
      if (wantGpu !== null && serverUrl) void connect();
      return () => running?.stop();
    },
    startSim() {
      restart();
      use(startPageSim(`lab-${lab.id}`, () => simPlay(lab, session.get()), onMessage));
    },
    connect,
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

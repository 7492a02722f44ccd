/**
 * The lab page's side effects around its session (src/lib/lab/session.ts): starts and stops the
 * sources (lab-source.ts), remembers the server URL, the steps passed and a passed lab on this device
 * (localStorage), emits 'saturate:lab-done' once per run, and downloads the session. In the lab
 * server's simulation it keeps the server playing what the live step needs (its scenario, then its fix)
 * through POST /api/sim/knobs, again after the server restarts. Holds the one running source; everything
 * shown is in the session. Browser-only; the lab island is the one user.
 */
import type { StreamMessage } from '../protocol/metrics.ts';
import { emit } from '../lib/events.ts';
import { toNdjson } from '../lib/lab/run.ts';
import { simPlay, type LabSession, type LabSessionModel } from '../lib/lab/session.ts';
import type { LabView } from '../lib/lab/run.ts';
import { labProgressKey, parseSavedRun, serializeSavedRun } from '../lib/lab/progress.ts';
import { defaultKnobs } from '../lib/sim/index.ts';
import {
  connectServer,
  parseServerUrl,
  probeOwnServer,
  setServerKnobs,
  startPageSim,
  type RunningSource,
  type ServerAddress,
} from './lab-source.ts';
import { absorbServerToken, LAB_SERVER_KEY, remembered } from './remembered.ts';
import { isWatchOnly } from '../lib/lab/connection.ts';
import { LIVE_VIEW_ANCHOR } from '../lib/fleet-view.ts';

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
  /** Applies the live step's fix: in the page's simulator, or through the lab server's simulation. */
  fix(): void;
  /** Forgets the steps passed on this device and starts again from step 1 on the same source. */
  startOver(): void;
  /** Saves the session as NDJSON (replayable with `--source replay:FILE`). */
  download(): void;
}

/** The runner for `lab`'s page, acting on `session`. */
export function createLabRunner(lab: Pick<LabView, 'id' | 'steps'>, session: LabSessionModel): LabRunner {
  let running: RunningSource | null = null;
  /** The device the page was opened for (`?gpu=<device name or UUID>`, from the fleet page), shown once connected. */
  let wantGpu: string | null = null;
  /** The lab server whose simulation this page drives, and what it last asked it to play. */
  let server: ServerAddress | null = null;
  let sentPlay = '';
  /** The scenario the server confirmed it plays: until then (and after it restarts) its samples are another scenario's. */
  let confirmed: string | null = null;
  let sending = false;
  const { dispatch } = session;

  /** Keeps the saved steps in step with the session (written on a pass, removed when done or started over). */
  const persist = (before: LabSession, after: LabSession) => {
    if (before.saved === after.saved) return;
    if (after.saved) remembered.set(labProgressKey(lab.id), serializeSavedRun(after.saved));
    else remembered.remove(labProgressKey(lab.id));
  };
  const act = (a: Parameters<typeof dispatch>[0]) => {
    const before = session.get();
    dispatch(a);
    persist(before, session.get());
  };

  /** In the server's simulation: asks the server to play what the live step needs, once per change. */
  const syncServer = async () => {
    const s = session.get();
    if (!server || sending || s.source?.kind !== 'server' || s.source.control !== 'server') return;
    const p = simPlay(lab, s);
    // Every knob of the scenario, so none is left over from an earlier step (and none it lacks: a step's own
    // knobs may belong to the scenario before its fix switched it).
    const knobs = defaultKnobs(p.scenario);
    for (const k of Object.keys(knobs)) knobs[k] = p.knobs[k] ?? knobs[k]!;
    const play = { scenario: p.scenario, knobs };
    const key = JSON.stringify(play);
    if (key === sentPlay) return;
    sending = true;
    const answer = await setServerKnobs(server, play);
    sending = false;
    if (answer.ok) {
      sentPlay = key;
      confirmed = play.scenario;
      dispatch({ type: 'controlled', source: answer.source, reason: answer.reason });
    } else if (answer.status === 409) {
      dispatch({
        type: 'refused',
        message: `${answer.message || 'The lab server has no simulation to change.'} Run each step's command instead.`,
      });
    } else {
      sentPlay = key; // not again until the step asks for something else: no loop of refused requests
      dispatch({
        type: 'error',
        message: `The lab server did not apply the step (${answer.status}): ${answer.message}`,
      });
    }
    void syncServer(); // the step may have moved on while the request was out
  };

  /** A sample the live step may judge: in the server's simulation, only the scenario the step asked for. */
  const belongs = (m: StreamMessage): boolean => {
    const src = session.get().source;
    if (src?.kind !== 'server' || src.control !== 'server') return true;
    return confirmed !== null && (m.source === `sim:${confirmed}` || m.source.startsWith(`sim:${confirmed}?`));
  };

  const onMessage = (m: StreamMessage) => {
    if (!belongs(m)) return void syncServer();
    // Someone else's job (a fleet GPU): its samples feed the charts, never this device's progress in the lab.
    if (isWatchOnly(session.get().source)) return void dispatch({ type: 'message', message: m });
    const wasDone = session.get().done;
    act({ type: 'message', message: m });
    const s = session.get();
    void syncServer();
    if (wasDone || !s.done) return;
    emit('saturate:lab-done', { labId: lab.id, passed: true, durationMs: Date.now() - s.startedAtMs, at: Date.now() });
    remembered.set(doneKey(lab.id), String(Date.now()));
  };

  /** Stops the source and starts a new run. */
  const restart = () => {
    running?.stop();
    running = null;
    server = null;
    sentPlay = '';
    confirmed = null;
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
    // Opened at its charts (the fleet page's link): the page grew while connecting, so go there again.
    if (location.hash === `#${LIVE_VIEW_ANCHOR}`)
      requestAnimationFrame(() => document.getElementById(LIVE_VIEW_ANCHOR)?.scrollIntoView({ block: 'start' }));
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
      const src = await connectServer(addr, {
        onMessage,
        onStatus: (text) => dispatch({ type: 'status', text }),
        onRestart: () => {
          sentPlay = ''; // a restarted server plays its own scenario again: send the step's once more
          confirmed = null;
          void syncServer();
        },
        onFatal: (message) => dispatch({ type: 'error', message }),
      });
      remembered.set(LAB_SERVER_KEY, url.trim());
      server = addr;
      use(src);
      void syncServer();
    } catch (e) {
      dispatch({ type: 'status', text: '' });
      dispatch({ type: 'error', message: (e as Error).message });
    }
  };

  return {
    open() {
      const params = new URLSearchParams(location.search);
      const fromUrl = params.get('server');
      const known = absorbServerToken(); // `?token=` on this page, or what an earlier visit remembered
      wantGpu = params.get('gpu');
      const serverUrl = fromUrl ?? known ?? '';
      dispatch({
        type: 'opened',
        serverUrl,
        serverFirst: serverUrl !== '' || wantGpu !== null,
        unlocked: remembered.get(doneKey(lab.id)) !== null,
        saved: parseSavedRun(remembered.get(labProgressKey(lab.id)), lab.steps.length),
      });
      // Opened for one GPU (a fleet page link): connect at once and show it.
      if (wantGpu !== null && serverUrl) void connect();
      // Served by a lab server: say what it reads, and connect to it by itself when its token is known.
      else
        void probeOwnServer().then((own) => {
          if (!own) return;
          dispatch({ type: 'own-server', server: own });
          const s = session.get();
          if (s.source !== null || s.status !== '') return; // the learner started something meanwhile
          let origin = '';
          try {
            origin = parseServerUrl(s.serverUrl).origin;
          } catch {
            return; // no token known yet: the panel says where to get it
          }
          if (origin === own.origin) void connect();
        });
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
      server = null;
      sentPlay = '';
      dispatch({ type: 'stopped' });
    },
    fix() {
      dispatch({ type: 'fix' });
      void syncServer();
    },
    startOver() {
      act({ type: 'start-over', at: Date.now() });
      void syncServer();
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

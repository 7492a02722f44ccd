/**
 * The lab page's island: connect panel, step list with live checks, live charts, the diagnosis,
 * the session download and, once every step passes, the debrief quiz. Three ways to run on the
 * same page: the simulator in this page, the lab server's simulation, or a real GPU via the server.
 *
 * State: samples arrive one `StreamMessage` at a time; the run (`src/lib/lab-run.ts`) only sees
 * samples from after its live step started. Completion emits 'saturate:lab-done' (the progress
 * store records it) and remembers the unlocked debrief in localStorage.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { StreamMessage } from '../protocol/metrics.ts';
import { toPoint, type MetricContext, type MetricPoint } from '../lib/lab-metrics.ts';
import { advanceRun, startRun, toNdjson, type LabView, type RunState } from '../lib/lab-run.ts';
import { diagnose, type Diagnosis } from '../lib/diagnose.ts';
import type { CheckResult } from '../lib/checks.ts';
import { emit } from '../lib/events.ts';
import type { QuizQuestion } from '../lib/quiz.ts';
import {
  connectServer,
  parseServerUrl,
  startPageSim,
  type RunningSource,
  type SimPlay,
  type SourceInfo,
} from './LabSource.ts';
import LabConnect from './LabConnect.tsx';
import LabSteps from './LabSteps.tsx';
import LabChart from './LabChart.tsx';
import LabDiagnosis from './LabDiagnosis.tsx';
import Quiz from './Quiz.tsx';

/** Props: the lab (Markdown pre-rendered) and its debrief in the quiz's shape. */
export interface LabConsoleProps {
  lab: LabView;
  debrief: QuizQuestion[];
}

const SERVER_KEY = 'saturate:lab-server';
const doneKey = (id: string) => `saturate:lab-done:${id}`;
const MAX_POINTS = 1200; // 10 minutes at 500 ms
const MAX_MESSAGES = 7200; // an hour at 500 ms, for the download

const store = {
  get: (k: string): string | null => {
    try {
      return localStorage.getItem(k);
    } catch {
      return null; // storage blocked (private mode): nothing remembered
    }
  },
  set: (k: string, v: string): void => {
    try {
      localStorage.setItem(k, v);
    } catch {
      /* storage blocked: the lab still works, it just won't remember */
    }
  },
};

/** The whole lab: source, steps, charts, diagnosis, download and debrief. */
export default function LabConsole({ lab, debrief }: LabConsoleProps) {
  const [source, setSource] = useState<SourceInfo | null>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [serverUrl, setServerUrl] = useState('');
  const [serverFirst, setServerFirst] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [gpuIndex, setGpuIndex] = useState(0);
  const [points, setPoints] = useState<MetricPoint[]>([]);
  const [run, setRun] = useState<RunState>(startRun);
  const [result, setResult] = useState<CheckResult | null>(null);
  const [fixApplied, setFixApplied] = useState(false);
  const [diag, setDiag] = useState<Diagnosis | null>(null);
  const [done, setDone] = useState(false);
  const [unlocked, setUnlocked] = useState(false);
  const [announce, setAnnounce] = useState('');

  const running = useRef<RunningSource | null>(null);
  const messages = useRef<StreamMessage[]>([]);
  const pts = useRef<MetricPoint[]>([]);
  const runRef = useRef<RunState>(run);
  const fixRef = useRef(false);
  const speedRef = useRef(1);
  const gpuRef = useRef(0);
  const doneRef = useRef(false);
  const startedAt = useRef(0);
  const lastDiag = useRef(-Infinity);

  const ctx: MetricContext = {};
  if (lab.mfu) {
    ctx.flopsPerUnit = lab.mfu.flopsPerToken;
    if (lab.mfu.peakTflops !== null) ctx.peakTflops = lab.mfu.peakTflops;
  }
  const ctxRef = useRef(ctx);

  useEffect(() => {
    setUnlocked(store.get(doneKey(lab.id)) !== null);
    const params = new URLSearchParams(location.search);
    const fromUrl =
      params.get('server') ?? (params.get('token') ? `${location.origin}/?token=${params.get('token')}` : null);
    setServerUrl(fromUrl ?? store.get(SERVER_KEY) ?? '');
    setServerFirst(fromUrl !== null);
    return () => running.current?.stop();
  }, [lab.id]);

  const onMessage = useCallback(
    (m: StreamMessage) => {
      messages.current.push(m);
      if (messages.current.length > MAX_MESSAGES) messages.current.splice(0, messages.current.length - MAX_MESSAGES);
      pts.current.push(toPoint(m, gpuRef.current, ctxRef.current));
      if (pts.current.length > MAX_POINTS) pts.current.splice(0, pts.current.length - MAX_POINTS);
      const prev = runRef.current;
      const r = advanceRun(lab.steps, prev, pts.current);
      if (r.state.index !== prev.index) {
        fixRef.current = doneRef.current || r.done;
        setFixApplied(false);
        setAnnounce(`Step ${prev.index + 1} passed: ${lab.steps[prev.index]?.title ?? ''}.`);
      }
      runRef.current = r.state;
      if (r.done && !doneRef.current) {
        doneRef.current = true;
        fixRef.current = true;
        emit('saturate:lab-done', {
          labId: lab.id,
          passed: true,
          durationMs: Date.now() - startedAt.current,
          at: Date.now(),
        });
        store.set(doneKey(lab.id), String(Date.now()));
        setDone(true);
        setUnlocked(true);
        setAnnounce('Every step passed. The debrief is unlocked.');
      }
      setRun(r.state);
      setResult(r.result);
      setPoints([...pts.current]);
      if (m.sampledAtMs - lastDiag.current >= 2000) {
        lastDiag.current = m.sampledAtMs;
        setDiag(diagnose(messages.current.slice(-240)));
      }
    },
    [lab],
  );

  const reset = () => {
    running.current?.stop();
    running.current = null;
    messages.current = [];
    pts.current = [];
    runRef.current = startRun();
    fixRef.current = false;
    doneRef.current = false;
    lastDiag.current = -Infinity;
    startedAt.current = Date.now();
    setRun(runRef.current);
    setResult(null);
    setPoints([]);
    setDiag(null);
    setDone(false);
    setFixApplied(false);
    setError('');
    setStatus('');
  };

  const play = useCallback((): SimPlay => {
    const i = Math.min(runRef.current.index, lab.steps.length - 1);
    const step = lab.steps[i]!;
    const fixed = fixRef.current && step.fix;
    return {
      scenario: fixed ? step.fix!.scenario : step.sim.scenario,
      knobs: fixed ? { ...step.sim.knobs, ...step.fix!.knobs } : step.sim.knobs,
      speed: speedRef.current,
    };
  }, [lab]);

  const startSim = () => {
    reset();
    const src = startPageSim(`lab-${lab.id}`, play, onMessage);
    running.current = src;
    gpuRef.current = 0;
    setGpuIndex(0);
    setSource(src.info);
  };

  const connect = async () => {
    let addr;
    try {
      addr = parseServerUrl(serverUrl);
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    reset();
    setStatus('connecting…');
    try {
      const src = await connectServer(addr, onMessage, setStatus);
      running.current = src;
      store.set(SERVER_KEY, serverUrl.trim());
      gpuRef.current = 0;
      setGpuIndex(0);
      setSource(src.info);
    } catch (e) {
      setStatus('');
      setError((e as Error).message);
    }
  };

  const stop = () => {
    running.current?.stop();
    running.current = null;
    setSource(null);
    setStatus('');
  };

  const chooseGpu = (i: number) => {
    gpuRef.current = i;
    setGpuIndex(i);
    pts.current = messages.current.slice(-MAX_POINTS).map((m) => toPoint(m, i, ctxRef.current));
    setPoints([...pts.current]);
  };

  const download = () => {
    const blob = new Blob([toNdjson(messages.current)], { type: 'application/x-ndjson' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `saturate-${lab.id}-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };

  const costBox = lab.cost && points.length > 0 ? idleCost(points, lab.cost.usdPerGpuHour) : null;

  return (
    <div className="lab-console">
      <p className="sr-only" role="status" aria-live="polite">
        {announce}
      </p>
      <LabConnect
        source={source}
        status={status}
        error={error}
        serverUrl={serverUrl}
        serverFirst={serverFirst}
        speed={speed}
        gpuIndex={gpuIndex}
        onServerUrl={setServerUrl}
        onStartSim={startSim}
        onConnect={() => void connect()}
        onStop={stop}
        onSpeed={(s) => {
          speedRef.current = s;
          setSpeed(s);
        }}
        onGpu={chooseGpu}
      />
      <section aria-labelledby="lab-steps-h">
        <h2 id="lab-steps-h">Steps</h2>
        <LabSteps
          steps={lab.steps}
          index={run.index}
          result={result}
          source={source}
          fixApplied={fixApplied}
          onFix={() => {
            fixRef.current = true;
            setFixApplied(true);
          }}
        />
      </section>
      {done && (
        <p className="lab-done" data-testid="lab-complete">
          Lab complete: every check passed. Your progress recorded it.
        </p>
      )}
      <section aria-labelledby="lab-charts-h">
        <h2 id="lab-charts-h">Live metrics</h2>
        {lab.charts.map((c) => (
          <LabChart key={c.title} title={c.title} metrics={c.metrics} thresholds={c.thresholds} points={points} />
        ))}
        {costBox && (
          <p className="lab-cost">
            Over the last 30 s this GPU was idle but allocated {Math.round(costBox.share * 100)}% of the time. At an
            assumed ${lab.cost!.usdPerGpuHour.toFixed(2)} per GPU-hour, a month (730 h) like that costs about{' '}
            <strong>${Math.round(costBox.monthlyUsd).toLocaleString('en-US')}</strong> for idle time.
          </p>
        )}
      </section>
      <LabDiagnosis d={diag} />
      <div className="actions">
        <button type="button" className="button secondary" onClick={download} disabled={points.length === 0}>
          Download this session (NDJSON)
        </button>
      </div>
      <section aria-labelledby="lab-debrief-h" id="debrief">
        <h2 id="lab-debrief-h">Debrief</h2>
        {unlocked ? (
          <Quiz
            title="Debrief"
            quizId={`lab:${lab.id}`}
            context="lab"
            questions={debrief}
            seed={lab.id}
            links={[{ href: '/labs/', label: 'All labs' }]}
          />
        ) : (
          <p className="muted">
            Pass every step to unlock {debrief.length} questions. Your answers join your review queue.
          </p>
        )}
      </section>
    </div>
  );
}

/** Share of the last 30 s that the GPU held memory with no kernel running, and what a month of that costs. */
function idleCost(points: readonly MetricPoint[], usdPerGpuHour: number): { share: number; monthlyUsd: number } {
  const last = points[points.length - 1]!;
  const recent = points.filter((p) => p.tMs > last.tMs - 30_000);
  const idle = recent.filter((p) => (p.values.gpuUtilPct ?? 100) < 5 && (p.values.memUsedGiB ?? 0) >= 1).length;
  const share = recent.length ? idle / recent.length : 0;
  return { share, monthlyUsd: share * 730 * usdPerGpuHour };
}

/**
 * The fleet page's script: finds the lab server (this page's own origin when it was opened with ?token=, else
 * the one the labs remember, else the URL the learner pastes), asks it for `/api/fleet?window=…`, and renders
 * the report with the arithmetic of src/lib/fleet-view.ts. Everything is written with textContent.
 */
import {
  costOfFleet,
  dataSpanText,
  formatUsd,
  groupFleet,
  liveViewPath,
  nowAndWindowText,
  STATE_NAMES,
  type FleetGpuJson,
  type GroupBy,
  windowWithData,
} from '../lib/fleet-view.ts';
import { describeGpuModel } from '../lib/gpu-specs.ts';
import { withBase } from '../lib/base-path.ts';
import { parseServerUrl, type ServerAddress } from './lab-source.ts';
import { LAB_SERVER_KEY, remembered } from './remembered.ts';
import { priceFields } from './fleet-prices.ts';

/** A model's price per GPU-hour now (the page's fields), or null when it has none. */
type PriceOf = (model: string) => number | null;

interface FleetJson {
  /** `liveS`: seconds of scrapes the verdict now reads (absent from an older server). */
  window: { seconds: number; endS: number; segmentS: number; liveS?: number };
  /** Seconds of the window Prometheus holds GPU samples for; null: none. */
  dataSpanS: number | null;
  prometheus: string;
  gpus: FleetGpuJson[];
  summary: {
    gpus: number;
    gpuHours: number;
    byKind: Record<string, number>;
    wastefulHours: number;
    energyKWh: number | null;
    /** Where the energy came from (server/fleet/audit.ts): the energy counter, or mean power from the recording rules. */
    energyFrom?: 'counter' | 'power' | null;
  };
}

/** How the headline names where its energy figure came from. */
const ENERGY_FROM = {
  counter: 'from the GPUs’ energy counters',
  power: 'from their mean power in the recording rules',
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const hours = (h: number) => (h >= 100 ? Math.round(h).toLocaleString('en-US') : h.toFixed(1));

/** The waste-by-state table and the headline above it. */
function renderSummary(report: FleetJson, priceOf: PriceOf): void {
  const s = report.summary;
  const cost = costOfFleet(report.gpus, priceOf);
  const simulated = report.gpus.filter((g) => g.simulated).length;
  const simWords =
    simulated === 0 ? '' : simulated === s.gpus ? ' (all simulated)' : ` (${simulated} of them simulated)`;
  const share = (h: number) => (s.gpuHours ? `${Math.round((100 * h) / s.gpuHours)}%` : '–');
  document.querySelector<HTMLElement>('[data-fleet-headline]')!.textContent =
    `${s.gpus} GPUs${simWords} from ${report.prometheus}: ${hours(s.gpuHours)} GPU-hours reported, ${hours(s.wastefulHours)} ` +
    `(${share(s.wastefulHours)}) in a wasteful state` +
    (cost.totalUsd === null
      ? '. Enter a price per GPU-hour to see what they cost.'
      : `, about ${formatUsd(cost.totalUsd)}` +
        (cost.unpricedHours > 0 ? ` (${hours(cost.unpricedHours)} GPU-hours of unpriced models not counted).` : '.')) +
    (s.energyKWh === null
      ? ''
      : ` Energy: ${Math.round(s.energyKWh).toLocaleString('en-US')} kWh, ${ENERGY_FROM[s.energyFrom ?? 'counter']}.`);
  document.querySelector<HTMLElement>('[data-fleet-states]')!.replaceChildren(
    ...Object.keys(STATE_NAMES)
      .filter((k) => (s.byKind[k] ?? 0) > 0)
      .map((k) => {
        const h = s.byKind[k]!;
        const usd = cost.byKindUsd[k];
        const th = el('th', STATE_NAMES[k]);
        th.setAttribute('scope', 'row');
        const tr = el('tr');
        tr.append(th, el('td', hours(h)), el('td', share(h)), el('td', usd === undefined ? '–' : formatUsd(usd)));
        return tr;
      }),
  );
}

/** One GPU: where it is, its verdict now, its wasteful hours, and why (a disclosure). */
function gpuItem(gpu: FleetGpuJson, liveS: number | null): HTMLLIElement {
  const li = el('li');
  // "mostly X" where now and the window agree; both, and why, where they differ.
  const overWindow = nowAndWindowText(gpu, liveS);
  const owner = [gpu.labels.namespace, gpu.labels.pod ?? gpu.labels.job].filter(Boolean).join('/');
  const title = el('span', `${gpu.hostname} · GPU ${gpu.gpu} · ${describeGpuModel(gpu.model)}`, 'title');
  // Its series carry simulated="true": a lab server's simulated GPU, said in words as the lab console says it.
  if (gpu.simulated) title.append(' ', el('strong', 'SIMULATED', 'fleet-sim-tag'));
  li.append(
    title,
    el('span', `Now: ${gpu.verdict.title} (${gpu.verdict.confidence} confidence)`, 'sub'),
    el(
      'span',
      `${hours(gpu.wastefulHours)} wasteful GPU-hours` +
        (overWindow ? ` · ${overWindow}` : '') +
        (owner ? ` · ${owner}` : ''),
      'sub',
    ),
  );
  // Its live view: the lab console for its verdict, on the lab server this page reads (remembered on load).
  const live = el('a', 'Open its live charts', 'fleet-live');
  live.href = withBase(liveViewPath(gpu));
  live.setAttribute('aria-label', `Open live charts of ${gpu.hostname} GPU ${gpu.gpu}`);
  li.append(live);
  const why = el('details', undefined, 'fleet-why');
  why.append(el('summary', 'Why, and what to do'));
  const ev = el('ul');
  for (const e of gpu.verdict.evidence) ev.append(el('li', e));
  why.append(ev, el('p', gpu.verdict.next));
  if (gpu.verdict.decide) why.append(el('p', `What would decide it: ${gpu.verdict.decide}`));
  li.append(why);
  return li;
}

/** The GPUs in groups (host, namespace or model), most wasteful first; the first three open. */
function renderGroups(report: FleetJson, by: GroupBy, priceOf: PriceOf): void {
  document.querySelector<HTMLElement>('[data-fleet-list]')!.replaceChildren(
    ...groupFleet(report.gpus, by).map((g, i) => {
      const d = el('details', undefined, 'fleet-group');
      d.open = i < 3;
      const usd = costOfFleet(g.gpus, priceOf).totalUsd;
      const sum = el('summary');
      sum.append(
        el('span', g.name, 'title'),
        el(
          'span',
          `${g.gpus.length} GPU${g.gpus.length === 1 ? '' : 's'} · ${hours(g.wastefulHours)} wasteful GPU-hours` +
            (usd === null ? '' : ` · ${formatUsd(usd)}`),
          'sub',
        ),
      );
      const ul = el('ul', undefined, 'fleet-gpus');
      ul.append(...g.gpus.map((x) => gpuItem(x, report.window.liveS ?? null)));
      d.append(sum, ul);
      return d;
    }),
  );
}

/** The lab server to read: this page's origin when opened with ?token= (then removed from the address bar), else the remembered one. */
function initialServer(): ServerAddress | null {
  const own = new URL(location.href).searchParams.get('token');
  if (own) {
    history.replaceState(history.state, '', location.pathname);
    return { origin: location.origin, token: own };
  }
  const url = remembered.get(LAB_SERVER_KEY);
  try {
    return url ? parseServerUrl(url) : null;
  } catch {
    return null;
  }
}

/** Starts the page. */
export function bootFleet(): void {
  const status = document.querySelector<HTMLElement>('[data-fleet-status]')!;
  const setup = document.querySelector<HTMLDetailsElement>('[data-fleet-setup]')!;
  const connect = document.querySelector<HTMLFormElement>('[data-fleet-connect]')!;
  const controls = document.querySelector<HTMLFormElement>('[data-fleet-controls]')!;
  const prices = document.querySelector<HTMLElement>('[data-fleet-prices]')!;
  let server = initialServer();
  let report: FleetJson | null = null;
  let priceOf: PriceOf = () => null;
  /** The learner picked the window: keep it even when the data fills little of it. */
  let chosenWindow = false;

  // The price fields call this on input, not on change (blur): a change must not close the groups the user opened.
  const render = (): void => {
    if (!report) return;
    renderSummary(report, priceOf);
    renderGroups(report, (controls.elements.namedItem('group') as HTMLSelectElement).value as GroupBy, priceOf);
    document.querySelector<HTMLElement>('[data-fleet-summary]')!.hidden = false;
    document.querySelector<HTMLElement>('[data-fleet-groups]')!.hidden = false;
  };

  /** The read in flight: a new one (another window chosen, the server connected again) cancels it. */
  let reading: AbortController | null = null;

  async function load(): Promise<void> {
    if (!server) return;
    reading?.abort();
    const mine = (reading = new AbortController());
    const w = (controls.elements.namedItem('window') as HTMLSelectElement).value;
    status.textContent = 'Reading the fleet…';
    let res: Response;
    let body: unknown;
    try {
      res = await fetch(
        `${server.origin}/api/fleet?window=${encodeURIComponent(w)}&token=${encodeURIComponent(server.token)}`,
        { signal: mine.signal },
      );
      // For bench/fleet.ts: from the response to the report in the DOM (parse and render), and to the next paint.
      performance.mark('fleet:response');
      body = await res.json().catch(() => ({}));
    } catch {
      if (mine.signal.aborted) return; // a newer read took its place: it shows its own answer
      status.textContent = `Could not reach the lab server at ${server.origin}: is it running?`;
      setup.open = true;
      return;
    }
    if (mine !== reading) return;
    if (!res.ok) {
      status.textContent =
        res.status === 404
          ? 'This lab server reads no fleet: start it with npm start -- --source prometheus:<your Prometheus URL>.'
          : ((body as { error?: string }).error ?? `The lab server answered ${res.status}.`);
      setup.open = true;
      return;
    }
    report = body as FleetJson;
    remembered.set(LAB_SERVER_KEY, `${server.origin}/?token=${server.token}`); // the live views connect to it
    priceOf = priceFields(prices, [...new Set(report.gpus.map((g) => g.model))].sort(), render);
    // Too little data for this window (a Prometheus that began scraping minutes ago): the shortest window that
    // holds it, once, unless the learner chose this window.
    const windowSelect = controls.elements.namedItem('window') as HTMLSelectElement;
    const offered = Object.fromEntries(
      [...windowSelect.options].map((o) => [o.value, { '1h': 3600, '24h': 86_400, '7d': 604_800 }[o.value] ?? 0]),
    );
    const better = chosenWindow ? null : windowWithData(report.dataSpanS, report.window.seconds, offered);
    if (better !== null) {
      windowSelect.value = better;
      return load();
    }
    const label = windowSelect.selectedOptions[0]?.textContent?.trim().toLowerCase() ?? `last ${w}`;
    status.textContent = `Read ${report.gpus.length} GPUs over the last ${w}. ${dataSpanText(report.dataSpanS)}${
      (report.dataSpanS ?? 0) < report.window.seconds * 0.9 ? `, so ${label} shows only that.` : '.'
    }`;
    setup.open = false;
    controls.hidden = false;
    render();
    performance.measure('fleet:render', 'fleet:response');
    requestAnimationFrame(() => setTimeout(() => performance.measure('fleet:paint', 'fleet:response')));
  }

  connect.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = (connect.elements.namedItem('url') as HTMLInputElement).value;
    try {
      server = parseServerUrl(text);
      remembered.set(LAB_SERVER_KEY, text.trim());
      void load();
    } catch (err) {
      status.textContent = (err as Error).message;
    }
  });
  controls.addEventListener('change', (e) => {
    const name = (e.target as HTMLInputElement).name;
    if (name === 'window') {
      chosenWindow = true;
      void load();
    } else if (name === 'group') render();
  });
  if (server) void load();
}

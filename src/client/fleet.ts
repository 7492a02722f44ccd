/**
 * The fleet page's script: finds the lab server (this page's own origin when it was opened with ?token=, else
 * the one the labs remember, else the URL the learner pastes), asks it for `/api/fleet?window=…`, and renders
 * the report with the arithmetic of src/lib/fleet-view.ts. Everything is written with textContent.
 */
import {
  formatUsd,
  groupFleet,
  mainState,
  STATE_NAMES,
  WASTE_STATES,
  type FleetGpuJson,
  type GroupBy,
} from '../lib/fleet-view.ts';
import { parseServerUrl, type ServerAddress } from './lab-source.ts';
import { LAB_SERVER_KEY, remembered } from './remembered.ts';

const PRICE_KEY = 'saturate:fleet-price';

interface FleetJson {
  window: { seconds: number; endS: number; segmentS: number };
  prometheus: string;
  gpus: FleetGpuJson[];
  summary: {
    gpus: number;
    gpuHours: number;
    byKind: Record<string, number>;
    wastefulHours: number;
    energyKWh: number | null;
  };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const hours = (h: number) => (h >= 100 ? Math.round(h).toLocaleString('en-US') : h.toFixed(1));

/** The waste-by-state table and the headline above it. */
function renderSummary(report: FleetJson, p: number | null): void {
  const s = report.summary;
  const share = (h: number) => (s.gpuHours ? `${Math.round((100 * h) / s.gpuHours)}%` : '–');
  document.querySelector<HTMLElement>('[data-fleet-headline]')!.textContent =
    `${s.gpus} GPUs from ${report.prometheus}: ${hours(s.gpuHours)} GPU-hours reported, ${hours(s.wastefulHours)} ` +
    `(${share(s.wastefulHours)}) in a wasteful state` +
    (p === null
      ? '. Enter a price per GPU-hour to see what they cost.'
      : `, about ${formatUsd(s.wastefulHours * p)}.`) +
    (s.energyKWh === null ? '' : ` Energy: ${Math.round(s.energyKWh).toLocaleString('en-US')} kWh.`);
  document.querySelector<HTMLElement>('[data-fleet-states]')!.replaceChildren(
    ...Object.keys(STATE_NAMES)
      .filter((k) => (s.byKind[k] ?? 0) > 0)
      .map((k) => {
        const h = s.byKind[k]!;
        const waste = (WASTE_STATES as readonly string[]).includes(k);
        const th = el('th', STATE_NAMES[k]);
        th.setAttribute('scope', 'row');
        const tr = el('tr');
        tr.append(th, el('td', hours(h)), el('td', share(h)), el('td', waste && p !== null ? formatUsd(h * p) : '–'));
        return tr;
      }),
  );
}

/** One GPU: where it is, its verdict now, its wasteful hours, and why (a disclosure). */
function gpuItem(gpu: FleetGpuJson): HTMLLIElement {
  const li = el('li');
  const main = mainState(gpu);
  const owner = [gpu.labels.namespace, gpu.labels.pod ?? gpu.labels.job].filter(Boolean).join('/');
  li.append(
    el('span', `${gpu.hostname} · GPU ${gpu.gpu} · ${gpu.model}`, 'title'),
    el('span', `Now: ${gpu.verdict.title} (${gpu.verdict.confidence} confidence)`, 'sub'),
    el(
      'span',
      `${hours(gpu.wastefulHours)} wasteful GPU-hours` +
        (main ? ` · mostly ${STATE_NAMES[main] ?? main}` : '') +
        (owner ? ` · ${owner}` : ''),
      'sub',
    ),
  );
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
function renderGroups(report: FleetJson, by: GroupBy, p: number | null): void {
  document.querySelector<HTMLElement>('[data-fleet-list]')!.replaceChildren(
    ...groupFleet(report.gpus, by).map((g, i) => {
      const d = el('details', undefined, 'fleet-group');
      d.open = i < 3;
      const sum = el('summary');
      sum.append(
        el('span', g.name, 'title'),
        el(
          'span',
          `${g.gpus.length} GPU${g.gpus.length === 1 ? '' : 's'} · ${hours(g.wastefulHours)} wasteful GPU-hours` +
            (p === null ? '' : ` · ${formatUsd(g.wastefulHours * p)}`),
          'sub',
        ),
      );
      const ul = el('ul', undefined, 'fleet-gpus');
      ul.append(...g.gpus.map(gpuItem));
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
  const price = controls.elements.namedItem('price') as HTMLInputElement;
  price.value = remembered.get(PRICE_KEY) ?? '';
  let server = initialServer();
  let report: FleetJson | null = null;

  const priceNow = (): number | null => {
    const v = Number(price.value);
    return price.value.trim() !== '' && Number.isFinite(v) && v >= 0 ? v : null;
  };
  const render = (): void => {
    if (!report) return;
    renderSummary(report, priceNow());
    renderGroups(report, (controls.elements.namedItem('group') as HTMLSelectElement).value as GroupBy, priceNow());
    document.querySelector<HTMLElement>('[data-fleet-summary]')!.hidden = false;
    document.querySelector<HTMLElement>('[data-fleet-groups]')!.hidden = false;
  };

  async function load(): Promise<void> {
    if (!server) return;
    const w = (controls.elements.namedItem('window') as HTMLSelectElement).value;
    status.textContent = 'Reading the fleet…';
    let res: Response;
    try {
      res = await fetch(
        `${server.origin}/api/fleet?window=${encodeURIComponent(w)}&token=${encodeURIComponent(server.token)}`,
      );
    } catch {
      status.textContent = `Could not reach the lab server at ${server.origin}: is it running?`;
      setup.open = true;
      return;
    }
    if (!res.ok) {
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      status.textContent =
        res.status === 404
          ? 'This lab server reads no fleet: start it with npm start -- --source prometheus:<your Prometheus URL>.'
          : (body.error ?? `The lab server answered ${res.status}.`);
      setup.open = true;
      return;
    }
    report = (await res.json()) as FleetJson;
    status.textContent = `Read ${report.gpus.length} GPUs over the last ${w}.`;
    setup.open = false;
    controls.hidden = false;
    render();
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
    if (name === 'window') void load();
    else if (name === 'group') render(); // the price re-renders on input; its change (on blur) must not close what is open
  });
  price.addEventListener('input', () => {
    remembered.set(PRICE_KEY, price.value);
    render();
  });
  if (server) void load();
}

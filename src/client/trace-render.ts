/** The trace report as DOM: the verdict first, then each rank's breakdowns as tables with captions. */
import { withBase } from '../lib/base-path.ts';
import type { RankReport, TraceReport } from '../lib/trace/index.ts';

type Child = Node | string | null | false | undefined;

function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== false && c !== undefined) el.append(c);
  return el;
}

const f1 = (x: number) => x.toFixed(1);
const ms = (us: number) => `${f1(us / 1000)} ms`;
const pc = (ratio: number) => `${f1(100 * ratio)}%`;

function table(caption: string, head: string[], rows: Child[][]): HTMLElement {
  // Tables scroll sideways on a phone (global.css): focusable, so a keyboard can scroll them too.
  return h(
    'table',
    { tabindex: '0' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      ...rows.map((r) => h('tr', {}, ...r.map((c, i) => h(i === 0 ? 'th' : 'td', i === 0 ? { scope: 'row' } : {}, c)))),
    ),
  );
}

/** A stacked bar with its numbers in text beside it (the bar is decoration). */
function bar(parts: { label: string; pct: number; cls: string }[]): HTMLElement {
  const b = h('div', { class: 'trace-bar', 'aria-hidden': 'true' });
  for (const p of parts) b.append(h('span', { class: p.cls, style: `width:${Math.max(0, p.pct)}%` }));
  return h(
    'div',
    {},
    b,
    h('p', { class: 'trace-legend' }, ...parts.map((p) => h('span', { class: p.cls }, `${p.label} ${f1(p.pct)}%`))),
  );
}

function verdict(r: TraceReport): HTMLElement {
  const v = r.verdict;
  return h(
    'section',
    { class: `trace-verdict kind-${v.kind}`, 'aria-labelledby': 'trace-verdict-h' },
    h('h2', { id: 'trace-verdict-h', tabindex: '-1' }, v.title),
    h('p', { class: 'muted' }, `${v.kind} · ${v.confidence} confidence${v.rank === null ? '' : ` · rank ${v.rank}`}`),
    h('ul', {}, ...v.evidence.map((e) => h('li', {}, e))),
    h('p', {}, h('strong', {}, 'What to change: '), v.next),
    v.decide ? h('p', {}, h('strong', {}, 'To decide: '), v.decide) : null,
    h(
      'p',
      {},
      'Learn it: ',
      ...v.cardIds.flatMap((id, i) => [
        i > 0 ? ', ' : '',
        h('a', { href: withBase(`/cards/${id}/`) }, id.replace(/-/g, ' ')),
      ]),
    ),
  );
}

function rank(x: RankReport): HTMLElement {
  const t = x.temporal;
  const title = `Rank ${x.rank ?? '–'}: ${x.label}`;
  const host = x.host;
  return h(
    'section',
    { class: 'trace-rank', 'aria-label': title },
    h('h2', {}, title),
    h(
      'p',
      { class: 'muted' },
      [x.platform.toUpperCase(), x.meta.deviceNames[0], `${ms(t.spanUs)} of GPU time`].filter(Boolean).join(' · '),
    ),
    h('h3', {}, 'Where the GPU time went'),
    bar([
      { label: 'Compute', pct: t.computePct, cls: 'c-compute' },
      { label: 'Non-compute', pct: t.nonComputePct, cls: 'c-other' },
      { label: 'Idle', pct: t.idlePct, cls: 'c-idle' },
    ]),
    h('h3', {}, 'What the host did while the GPU waited'),
    table(
      `Host wait: ${ms(host.hostWaitUs)}`,
      ['Cause', 'Time', 'Share'],
      (
        [
          ['Syncs (.item(), .cpu(), synchronize)', host.byCause.sync],
          ["DataLoader's __next__", host.byCause.dataLoader],
          ['Optimizer step', host.byCause.optimizer],
          ['Python and dispatch between launches', host.byCause.overhead],
        ] as const
      ).map(([k, us]) => [k, ms(us), host.hostWaitUs ? pc(us / host.hostWaitUs) : '–']),
    ),
    table(
      'Idle time per stream (HTA)',
      ['Stream', 'Idle', 'Host wait', 'Kernel wait', 'Other'],
      x.idle.streams.map((s) => [
        String(s.stream),
        ms(s.idleUs),
        pc(s.byCategory.host_wait.ratio),
        pc(s.byCategory.kernel_wait.ratio),
        pc(s.byCategory.other.ratio),
      ]),
    ),
    x.steps.length > 0 &&
      table(
        'Steps',
        ['Step', 'Time', 'GPU idle', 'DataLoader', 'Syncs'],
        x.steps.map((s) => [
          `#${s.step}`,
          ms(s.durUs),
          `${f1(s.gpuIdlePct)}%`,
          ms(s.dataLoaderUs),
          String(s.syncCalls),
        ]),
      ),
    h('h3', {}, 'Kernels'),
    h(
      'p',
      {},
      x.kernels.byType.map((k) => `${k.label.toLowerCase()} ${f1(k.pct)}%`).join(', '),
      x.kernels.commOverlapPct === null
        ? ''
        : `; communication overlapped with compute ${f1(x.kernels.commOverlapPct)}%`,
      '.',
    ),
    x.launch &&
      h(
        'p',
        {},
        `${x.launch.launches} launches: launch delay median ${f1(x.launch.delayMedianUs)} µs (p95 ${f1(x.launch.delayP95Us)} µs); ${pc(x.launch.under10UsShare)} of kernels run under 10 µs.`,
      ),
    table(
      'Top kernels by time',
      ['Kernel', 'Time', 'Count', 'Mean'],
      x.kernels.top.map((k) => [
        h('span', { class: 'trace-kernel', title: k.name }, k.name),
        ms(k.sumUs),
        String(k.count),
        `${f1(k.meanUs)} µs`,
      ]),
    ),
    x.notes.length > 0 && h('ul', { class: 'muted small' }, ...x.notes.map((n) => h('li', {}, n))),
  );
}

/** The whole report. */
export function renderReport(r: TraceReport): DocumentFragment {
  const frag = document.createDocumentFragment();
  frag.append(verdict(r));
  if (r.warnings.length) frag.append(h('ul', { class: 'trace-warnings' }, ...r.warnings.map((w) => h('li', {}, w))));
  if (r.across)
    frag.append(
      h(
        'section',
        { 'aria-label': 'Across ranks' },
        h('h2', {}, 'Across ranks'),
        table(
          `Rank ${r.across.slowestRank} computes ${pc(r.across.slowestByRatio - 1)} longer than the median`,
          ['Rank', 'Compute', 'NCCL', 'NCCL share'],
          r.across.perRank.map((p) => [String(p.rank), ms(p.computeUs), ms(p.ncclUs), `${f1(p.ncclPct)}%`]),
        ),
      ),
    );
  for (const x of r.ranks) frag.append(rank(x));
  return frag;
}

/**
 * Makes one explorable figure (src/lib/figures/) live: loads the figure's own module, enables its controls and
 * redraws the chart, the slider's filled track and the readout on every input. Screen readers hear the readout once
 * per change (a slider let go or stepped by a key, a choice picked) from the figure's live region, not on every tick
 * of a drag. The static HTML already shows the starting state, so nothing moves. Loaded by src/client/figures.ts
 * only once a figure nears the viewport.
 */
import type { Control, FigureDef, Values } from '../lib/figures/types.ts';
import { valueText } from '../lib/figures/html.ts';

/** Each figure's module, loaded on demand (its names match src/lib/figures/registry.ts; a unit test checks). */
export const FIGURE_LOADERS: Record<string, () => Promise<{ figure: FigureDef }>> = {
  'kernel-timeline': () => import('../lib/figures/kernel-timeline.ts'),
  roofline: () => import('../lib/figures/roofline.ts'),
  'data-loader': () => import('../lib/figures/data-loader.ts'),
  'cost-of-idle': () => import('../lib/figures/cost-of-idle.ts'),
  mfu: () => import('../lib/figures/mfu.ts'),
  'kv-cache': () => import('../lib/figures/kv-cache.ts'),
  'launch-overhead': () => import('../lib/figures/launch-overhead.ts'),
  'decode-batching': () => import('../lib/figures/decode-batching.ts'),
  sampling: () => import('../lib/figures/sampling.ts'),
  straggler: () => import('../lib/figures/straggler.ts'),
  sharing: () => import('../lib/figures/sharing.ts'),
  energy: () => import('../lib/figures/energy.ts'),
  'power-clocks': () => import('../lib/figures/power-clocks.ts'),
};

/** A control's value from its element (log sliders hold log10 of the value; 3 significant digits). */
function readControl(c: Control, el: HTMLInputElement | HTMLSelectElement): number | string {
  if (c.kind === 'select') return el.value;
  const pos = Number(el.value);
  return c.log ? Number((10 ** pos).toPrecision(3)) : pos;
}

/** Hydrates one `figure[data-figure]`. */
export async function hydrate(root: HTMLElement): Promise<void> {
  const load = FIGURE_LOADERS[root.dataset['figure'] ?? ''];
  if (!load) return;
  const { figure } = await load();
  const values = JSON.parse(root.dataset['values'] ?? '{}') as Values;
  const chart = root.querySelector('svg.fig-chart')!;
  const readout = root.querySelector('.fig-readout')!;
  const live = root.querySelector('.fig-live')!; // every figure has one (html.ts)
  // One listener for every control: "change" bubbles from each.
  root.addEventListener('change', () => (live.textContent = readout.textContent));
  for (const c of figure.controls) {
    const el = root.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-control="${c.id}"]`);
    if (!el) continue;
    el.disabled = false;
    el.addEventListener('input', () => {
      values[c.id] = readControl(c, el);
      const shown = valueText(c, values[c.id]!);
      if (c.kind === 'range') {
        el.setAttribute('aria-valuetext', shown);
        // The filled share of the track, from the slider's own position (html.ts sliderFill drew the first one).
        const r = el as HTMLInputElement;
        el.style.setProperty('--fill', `${((+r.value - +r.min) / (+r.max - +r.min)) * 100}%`);
        const out = root.querySelector(`#${el.id}-o`);
        if (out) out.textContent = shown;
      }
      const view = figure.view(values);
      chart.innerHTML = view.svg;
      readout.textContent = view.readout; // not itself live: screen readers hear .fig-live
    });
  }
  root.dataset['live'] = '';
}

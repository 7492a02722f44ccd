/**
 * A figure's caption is heard once per change, not on every tick of a drag: the visible readout follows each input,
 * and the polite live region takes the readout when a change is made (slider let go or stepped, choice picked).
 * No DOM library here: the figure's static HTML is checked as text, and `hydrate` runs against a few stand-in
 * elements built on Node's EventTarget that answer the selectors it uses.
 */
import { describe, expect, test } from 'vitest';
import { hydrate } from '../../src/client/figure-hydrate.ts';
import { figureHtml } from '../../src/lib/figures/html.ts';
import { FIGURES, resolveFigure } from '../../src/lib/figures/registry.ts';
import { sliderPosition } from '../../src/lib/figures/html.ts';

class El extends EventTarget {
  textContent = '';
  innerHTML = '';
  value = '';
  min = '';
  max = '';
  disabled = true;
  id = '';
  readonly attrs: Record<string, string> = {};
  readonly style = {
    props: {} as Record<string, string>,
    setProperty(k: string, v: string) {
      this.props[k] = v;
    },
  };
  /** The element a bubbling event goes on to, as in the DOM. */
  parent: EventTarget | null = null;
  setAttribute(k: string, v: string) {
    this.attrs[k] = v;
  }
  override dispatchEvent(e: Event): boolean {
    const handled = super.dispatchEvent(e);
    if (e.bubbles) this.parent?.dispatchEvent(new Event(e.type, { bubbles: true }));
    return handled;
  }
}

/** A figure root whose parts are stand-ins, each found by the selector the script asks for. */
function standIn(name: string) {
  const figure = FIGURES[name]!;
  const { values } = resolveFigure({ name });
  const parts: Record<string, El> = { 'svg.fig-chart': new El(), '.fig-readout': new El(), '.fig-live': new El() };
  parts['.fig-readout']!.textContent = figure.view(values).readout;
  for (const c of figure.controls) {
    const el = new El();
    el.id = `fig-1-${c.id}`;
    el.value = String(values[c.id]);
    if (c.kind === 'range') {
      el.min = String(sliderPosition(c, c.min));
      el.max = String(sliderPosition(c, c.max));
    }
    parts[`[data-control="${c.id}"]`] = el;
    parts[`#fig-1-${c.id}-o`] = new El();
  }
  const root = Object.assign(new EventTarget(), {
    dataset: { figure: name, values: JSON.stringify(values) } as Record<string, string>,
    querySelector: (sel: string) => parts[sel] ?? null,
  });
  for (const el of Object.values(parts)) el.parent = root;
  return { root: root as unknown as HTMLElement, parts };
}

describe('a figure’s caption for screen readers', () => {
  test('the static figure has an empty polite live region, and the visible readout is not itself live', () => {
    for (const f of Object.values(FIGURES)) {
      const html = figureHtml(f, resolveFigure({ name: f.name }).values, 'fig-1');
      expect(html).toMatch(/<p class="fig-readout" id="fig-1-r">[^<]+<\/p>/);
      expect(html).toContain('<p class="fig-live sr-only" id="fig-1-live" aria-live="polite"></p>');
    }
  });

  test('dragging redraws the readout at each tick; the live region speaks once, when the slider is let go', async () => {
    const { root, parts } = standIn('kernel-timeline');
    await hydrate(root);
    const slider = parts['[data-control="smsUsed"]']!;
    const readout = parts['.fig-readout']!;
    const live = parts['.fig-live']!;
    for (const sms of [120, 90, 66]) {
      slider.value = String(sms);
      slider.dispatchEvent(new Event('input'));
      expect(readout.textContent).toBe(
        FIGURES['kernel-timeline']!.view({ kernelUs: 50, gapUs: 10, smsUsed: sms }).readout,
      );
      expect(live.textContent).toBe('');
    }
    expect(parseFloat(slider.style.props['--fill']!)).toBeCloseTo(49.62, 2); // (66 − 1) ÷ (132 − 1) of the track filled
    slider.dispatchEvent(new Event('change', { bubbles: true })); // a real slider's change bubbles
    expect(live.textContent).toBe(readout.textContent);
  });
});

/**
 * The fleet page's price fields: one per GPU model in the report, filled with the model's default list price
 * (src/lib/gpu-prices.ts) and its source and date beside it, or left empty with the reason when the model has
 * none. What the user types is remembered per model; a price typed before per-model prices existed (one field for
 * every GPU) fills the models the user has not priced yet, so it is not lost.
 */
import { defaultPriceFor, describePrice, NO_DEFAULT_PRICE } from '../lib/gpu-prices.ts';
import { describeGpuModel, gpuSpecByName, UNKNOWN_MODEL } from '../lib/gpu-specs.ts';
import { remembered } from './remembered.ts';

const PRICES_KEY = 'saturate:fleet-prices';
/** The single price of earlier versions of the page. */
const OLD_PRICE_KEY = 'saturate:fleet-price';

function readSaved(): Record<string, string> {
  try {
    const v = JSON.parse(remembered.get(PRICES_KEY) ?? '{}') as unknown;
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {}; // unreadable: start again from the defaults
  }
}

/** A price field's value as dollars, or null when empty or not a price. */
function parsePrice(text: string): number | null {
  const v = Number(text);
  return text.trim() !== '' && Number.isFinite(v) && v >= 0 ? v : null;
}

/**
 * Renders a field per model into `box` and calls `onChange` as prices are typed. Returns the price of a model now.
 */
export function priceFields(
  box: HTMLElement,
  models: readonly string[],
  onChange: () => void,
): (model: string) => number | null {
  const saved = readSaved();
  const old = remembered.get(OLD_PRICE_KEY);
  const inputs = new Map<string, HTMLInputElement>();
  box.replaceChildren(
    ...models.map((model, i) => {
      const row = document.createElement('div');
      row.className = 'fleet-price';
      const id = `fleet-price-${i}`;
      const label = document.createElement('label');
      label.htmlFor = id;
      label.textContent = describeGpuModel(model);
      const input = document.createElement('input');
      Object.assign(input, { id, type: 'number', min: '0', step: '0.01', inputMode: 'decimal' });
      const def = defaultPriceFor(model);
      input.value = saved[model] ?? (old && !(model in saved) ? old : def ? String(def.usdPerGpuHour) : '');
      const note = document.createElement('small');
      note.id = `${id}-source`;
      input.setAttribute('aria-describedby', note.id);
      if (def) {
        note.append(`Default ${describePrice(def)}: `);
        const a = document.createElement('a');
        a.href = def.sourceUrl;
        a.textContent = 'source';
        a.rel = 'noopener';
        note.append(a);
      } else {
        const spec = gpuSpecByName(model);
        note.textContent = `No default price: ${spec ? (NO_DEFAULT_PRICE[spec.id] ?? 'none sourced; enter your own') : `${UNKNOWN_MODEL} (not in the GPU table); enter your own`}.`;
      }
      input.addEventListener('input', () => {
        const next = readSaved();
        next[model] = input.value;
        remembered.set(PRICES_KEY, JSON.stringify(next));
        onChange();
      });
      inputs.set(model, input);
      row.append(label, input, note);
      return row;
    }),
  );
  return (model) => {
    const input = inputs.get(model);
    return input ? parsePrice(input.value) : null;
  };
}

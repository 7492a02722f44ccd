/**
 * Energy per token: average watts ÷ tokens per second (content/cards/useful-work/energy-perf-per-watt-power-capping.md),
 * beside that card's illustrative power-cap sweep.
 */
import { fmt, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** Joules per token and kWh per million tokens at a steady power and throughput. */
export function energyPerToken(powerWatts: number, tokensPerSec: number) {
  const joulesPerToken = powerWatts / tokensPerSec;
  return { joulesPerToken, kWhPerMillionTokens: (joulesPerToken * 1e6) / 3.6e6 };
}

/** The card's illustrative sweep: limit, measured watts, tokens/s. */
const SWEEP = [
  { limitWatts: 700, watts: 650, tokensPerSec: 3000 },
  { limitWatts: 450, watts: 440, tokensPerSec: 2700 },
  { limitWatts: 350, watts: 345, tokensPerSec: 2000 },
];

export const figure: FigureDef = {
  name: 'energy',
  caption: 'Energy per token: average power over throughput, beside an illustrative power-cap sweep',
  controls: [
    { kind: 'range', id: 'powerWatts', label: 'Average power', unit: 'W', min: 50, max: 1000, step: 5, value: 450 },
    {
      kind: 'range',
      id: 'tokensPerSec',
      label: 'Throughput',
      unit: 'tokens/s',
      min: 10,
      max: 100000,
      step: 0.01,
      value: 3000,
      log: true,
    },
  ],
  view(v: Values) {
    const power = Number(v['powerWatts']);
    const tps = Number(v['tokensPerSec']);
    const r = energyPerToken(power, tps);
    const rows = [
      { label: 'yours', j: r.joulesPerToken, cls: 'fig-b' },
      ...SWEEP.map((s) => ({ label: `${s.limitWatts} W cap`, j: s.watts / s.tokensPerSec, cls: 'fig-a' })),
    ];
    const max = Math.max(...rows.map((x) => x.j));
    const x0 = 76;
    const w = 180;
    let svg = text(4, 14, 'joules per token', 'fig-t fig-s');
    rows.forEach((row, i) => {
      const y = 22 + i * 26;
      svg +=
        text(4, y + 13, row.label, 'fig-t fig-s') +
        rect(x0, y, (w * row.j) / max, 18, row.cls) +
        text(x0 + (w * row.j) / max + 4, y + 13, fmt(row.j), 'fig-t fig-s');
    });
    svg +=
      text(4, 148, `${fmt(r.joulesPerToken)} J per token`, 'fig-t fig-big') +
      text(4, 168, `${fmt(r.kWhPerMillionTokens)} kWh of GPU energy per million tokens`, 'fig-t');
    const readout =
      `${fmt(power)} W at ${fmt(tps)} tokens/s is ${fmt(r.joulesPerToken)} J per token: ` +
      `${fmt(r.kWhPerMillionTokens)} kWh of GPU energy per million tokens.`;
    return { svg, readout };
  },
};

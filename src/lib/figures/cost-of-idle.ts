/** Cost of idle: GPUs paid by the hour whatever they do (content/cards/serving/cost-of-idle-gpus.md). */
import { fmt, pct, rect, text } from './format.ts';
import type { FigureDef, Values } from './types.ts';

/** Hours in the month the cards count with: 30 days × 24 h. */
export const HOURS_PER_MONTH = 720;

/** Idle GPU-hours and their cost over a 30-day month. */
export function idleCost(gpus: number, dollarsPerGpuHour: number, idleShare: number) {
  const paidGpuHours = gpus * HOURS_PER_MONTH;
  const idleGpuHours = paidGpuHours * idleShare;
  return {
    paidGpuHours,
    idleGpuHours,
    idleDollars: idleGpuHours * dollarsPerGpuHour,
    paidDollars: paidGpuHours * dollarsPerGpuHour,
  };
}

const usd = (n: number) => `$${Math.round(n).toLocaleString('en-US')}`;

export const figure: FigureDef = {
  name: 'cost-of-idle',
  caption: 'Cost of idle: what a month of allocated but idle GPUs costs',
  controls: [
    { kind: 'range', id: 'gpus', label: 'GPUs allocated', unit: 'GPUs', min: 1, max: 512, step: 1, value: 8 },
    { kind: 'range', id: 'price', label: 'Price', unit: '$/GPU-hour', min: 0.25, max: 12, step: 0.25, value: 3 },
    { kind: 'range', id: 'idlePct', label: 'Idle share of the time', unit: '%', min: 0, max: 100, step: 1, value: 75 },
  ],
  view(v: Values) {
    const gpus = Number(v['gpus']);
    const price = Number(v['price']);
    const idle = Number(v['idlePct']) / 100;
    const r = idleCost(gpus, price, idle);
    const x0 = 8;
    const w = 304;
    const svg =
      text(x0, 16, `Paid: ${usd(r.paidDollars)} a month`) +
      rect(x0, 24, w, 40, 'fig-a') +
      rect(x0 + w * (1 - idle), 24, w * idle, 40, 'fig-c') +
      text(x0, 84, `busy ${pct(1 - idle)}`, 'fig-t fig-s') +
      text(x0 + w, 84, `idle ${pct(idle)}`, 'fig-t fig-s', 'end') +
      text(x0, 124, `Idle: ${fmt(r.idleGpuHours)} GPU-hours`, 'fig-t fig-big') +
      text(x0, 156, `${usd(r.idleDollars)} a month for nothing`, 'fig-t fig-big');
    const who = `${fmt(gpus)} ${gpus === 1 ? 'GPU' : 'GPUs'}`;
    const waste = gpus === 1 ? 'wastes' : 'waste';
    const readout =
      r.idleGpuHours > 0
        ? `${who} idle ${pct(idle)} of a 30-day month ${waste} ${fmt(r.idleGpuHours)} GPU-hours: ` +
          `${usd(r.idleDollars)} at $${price.toFixed(2)} per GPU-hour.`
        : `${who} busy all of a 30-day month ${waste} nothing: all ${fmt(r.paidGpuHours)} GPU-hours ` +
          `(${usd(r.paidDollars)} at $${price.toFixed(2)} per GPU-hour) do work.`;
    return { svg, readout };
  },
};

/**
 * Issue 28: the idle lab's cost is the fleet's sourced price for the same GPU (src/lib/gpu-prices.ts), never a
 * second number of its own: in the cost box, in the diagnosis beside it, and in its debrief.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { describe, expect, test } from 'vitest';
import LabCost from '../../src/islands/LabCost.tsx';
import { idleCostBox } from '../../src/lib/lab/cost.ts';
import { simMessage } from '../../src/lib/lab/run.ts';
import { toPoint } from '../../src/lib/lab/metrics.ts';
import { defaultPriceFor, HOURS_PER_MONTH } from '../../src/lib/gpu-prices.ts';
import { diagnose } from '../../src/lib/diagnose/index.ts';
import { splitFrontmatter } from '../../src/data/load-deck-files.ts';
import { LabSchema } from '../../src/schemas/lab.ts';

const T0 = Date.parse('2026-03-29T10:00:00Z');
const idleRun = Array.from({ length: 61 }, (_, i) => simMessage('idle', i * 500, 'lab', { releaseMemory: 0 }, i, T0));
const gpuName = idleRun[0]!.gpus[0]!.name;
/** The fleet's price for this GPU: the one number every cost on the lab must use. */
const fleetPrice = defaultPriceFor(gpuName)!;
const usd = (x: number) => `$${Math.round(x).toLocaleString('en-US')}`;
const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe("the idle lab's cost", () => {
  test("the cost box prices the lab's GPU at the fleet's sourced price, and says where it comes from", () => {
    expect(fleetPrice).not.toBeNull();
    const box = idleCostBox(
      idleRun.map((m) => toPoint(m, 0)),
      gpuName,
    )!;
    const said = text(renderToStaticMarkup(createElement(LabCost, { box })));
    expect(said).toContain(`$${fleetPrice.usdPerGpuHour}/GPU-hour`);
    expect(said).toContain(fleetPrice.provider);
    expect(said).toContain(usd(HOURS_PER_MONTH * fleetPrice.usdPerGpuHour));
    expect(said).not.toMatch(/\$3\.00|assumed/);
  });

  test('a GPU without a sourced price gets no cost, not a guess', () => {
    const box = idleCostBox([toPoint(idleRun[0]!, 0)], 'NVIDIA L4')!;
    expect(box.price).toBeNull();
    const said = text(renderToStaticMarkup(createElement(LabCost, { box })));
    expect(said).not.toMatch(/\$\d/);
    expect(said).toMatch(/no sourced list price/);
  });

  test('the diagnosis beside it quotes the same price and month', () => {
    const d = diagnose(idleRun);
    expect(d.kind).toBe('idle-allocated');
    expect(d.next).toContain(`$${fleetPrice.usdPerGpuHour}/GPU-hour`);
    expect(d.next).toContain(usd(HOURS_PER_MONTH * fleetPrice.usdPerGpuHour));
    expect(d.next).not.toMatch(/\$3\/GPU-hour|\$2,190/);
  });

  test('the lab states no price of its own; its debrief computes with the same price', () => {
    const file = readFileSync(join(process.cwd(), 'content/labs/idle-gpu-cost.md'), 'utf8');
    const lab = LabSchema.parse(splitFrontmatter(file).data);
    expect(lab.cost).toBe(true);
    const monthly = lab.debrief.find((q) => q.id === 'lab-idle-gpu-cost-monthly')!;
    expect(monthly.prompt).toContain(`$${fleetPrice.usdPerGpuHour} per GPU-hour`);
    expect(monthly.kind === 'numeric' && monthly.answer).toBeCloseTo(30 * 24 * fleetPrice.usdPerGpuHour, -1);
    expect(file).not.toMatch(/\$3\.00/);
  });
});

/**
 * Distributed-training diagrams: the path from a hung job to the rank that caused it
 * (content/cards/tooling/debugging-hangs-end-to-end.md).
 */
import { arrow, box } from './svg.ts';
import type { DiagramDef } from './types.ts';

function triageSvg(): string {
  const steps: readonly (readonly [string, string])[] = [
    ['1. Stacks from every rank, now', 'py-spy dump --pid … before the watchdog'],
    ['2. Group identical stacks', 'one rank elsewhere? read its stack'],
    ['3. Flight Recorder dumps', 'torchfrtrace: first unjoined collective'],
    ['4. NCCL logs on suspect hosts', 'NCCL_DEBUG=WARN or INFO, one file per host'],
  ];
  let svg = box(50, 4, 220, 34, ['Steps stopped advancing', 'GPU-Util 100%, SM low, power idle'], 'dg-hi');
  steps.forEach(([head, detail], i) => {
    const y = 52 + i * 48;
    svg += arrow(160, y - 14, 160, y) + box(10, y, 300, 34, [head, detail]);
  });
  // The last step splits: a transport error in the logs, or clean logs and a code-path divergence.
  svg +=
    arrow(100, 230, 82, 246) +
    arrow(220, 230, 238, 246) +
    box(10, 246, 145, 38, ['Clean logs: code', 'branch, I/O, uneven data'], 'dg-soft') +
    box(165, 246, 145, 38, ['NET/IB errors: link', 'drain node, check NIC'], 'dg-soft');
  return svg;
}

/** From a hung distributed job to the rank that diverged. */
export const hangTriage: DiagramDef = {
  name: 'hang-triage',
  title: 'Debugging a distributed hang, step by step',
  desc:
    'A top-to-bottom path. It starts when steps stop advancing while GPU-Util reads 100%, SM activity is low and ' +
    'power is near idle. Step 1: take py-spy stack dumps from every rank before the NCCL watchdog ends the ' +
    'processes. Step 2: group identical stacks; a rank whose stack differs is where to look. Step 3: read the ' +
    'Flight Recorder dumps with torchfrtrace to find the first collective that not every rank joined, and which ' +
    'ranks are missing. Step 4: read the NCCL logs on the suspect hosts. Clean logs point to code: a ' +
    'rank-dependent branch, a stuck read or uneven data. NET/IB errors point to a link or NIC: drain the node.',
  caption: 'Collect evidence from every rank before the watchdog fires, then narrow down to one rank and one cause.',
  height: 288,
  svg: triageSvg(),
};

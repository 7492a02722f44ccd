/**
 * Distributed-training diagrams: the path from a hung job to the rank that caused it
 * (content/cards/tooling/debugging-hangs-end-to-end.md), and how a ring and a tree all-reduce move data
 * (content/cards/training/collective-algorithms-ring-tree.md).
 */
import { arrow, box, label, line } from './svg.ts';
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

function ringTreeSvg(): string {
  let svg =
    label(80, 12, 'Ring: 2(n−1) steps', 'dg-bold', 'middle') +
    label(240, 12, 'Tree: ~2·log2(n) steps', 'dg-bold', 'middle');
  // Eight ranks on a circle, each sending to the next.
  const n = 8;
  const at = (i: number) => {
    const a = (2 * Math.PI * i) / n - Math.PI / 2;
    return [80 + 50 * Math.cos(a), 76 + 50 * Math.sin(a)] as const;
  };
  for (let i = 0; i < n; i++) {
    const [x1, y1] = at(i);
    const [x2, y2] = at((i + 1) % n);
    const dx = x2 - x1;
    const dy = y2 - y1;
    const d = Math.hypot(dx, dy);
    svg += arrow(x1 + (dx / d) * 11, y1 + (dy / d) * 11, x2 - (dx / d) * 11, y2 - (dy / d) * 11);
  }
  for (let i = 0; i < n; i++) {
    const [x, y] = at(i);
    svg += box(x - 9, y - 8, 18, 16, [String(i)]);
  }
  // A binary tree of seven ranks: reduce up to the root, broadcast back down.
  const nodes: readonly (readonly [number, number])[] = [
    [240, 32],
    [200, 76],
    [280, 76],
    [180, 120],
    [220, 120],
    [260, 120],
    [300, 120],
  ];
  for (let c = 1; c < nodes.length; c++) {
    const [px, py] = nodes[(c - 1) >> 1]!;
    const [cx, cy] = nodes[c]!;
    svg += line(px, py + 8, cx, cy - 8);
  }
  nodes.forEach(([x, y], i) => {
    svg += box(x - 9, y - 8, 18, 16, [String(i)], i === 0 ? 'dg-hi' : 'dg-box');
  });
  svg +=
    label(240, 152, 'sums go up, results come down', 'dg-s', 'middle') +
    label(80, 152, 'every link busy: full bandwidth', 'dg-s', 'middle') +
    label(160, 176, 'Time ≈ steps × α + bytes per rank ÷ B', 'dg-bold', 'middle') +
    label(160, 192, 'ring: latency grows with n; tree: with log2(n)', 'dg-s', 'middle') +
    label(160, 206, 'NVLS and CollNet: the switch adds the data up', 'dg-s', 'middle');
  return svg;
}

/** A ring all-reduce next to a tree all-reduce. */
export const ringVsTree: DiagramDef = {
  name: 'ring-vs-tree',
  title: 'Ring and tree all-reduce',
  desc:
    'Left: eight ranks in a ring, each sending to the next; an all-reduce takes 2(n−1) steps, each moving 1/n of ' +
    'the data, so every link is busy and bandwidth is fully used, but latency grows linearly with the number of ' +
    'ranks. Right: seven ranks in a binary tree; partial sums travel up to the root and the result travels back ' +
    'down, about 2·log2(n) steps, so latency grows only with the logarithm of n. Below: time is roughly the number ' +
    'of steps times the per-step latency alpha plus the bytes each rank sends divided by the link bandwidth B. ' +
    'NVLS and CollNet instead let the switch add the data up.',
  caption: 'A ring keeps every link busy but needs 2(n−1) steps; a tree needs about 2·log2(n).',
  height: 212,
  svg: ringTreeSvg(),
};

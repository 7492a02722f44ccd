/**
 * A static roofline of the H100 SXM (989 TFLOP/s dense BF16, 3.35 TB/s HBM3; ridge ≈ 295 FLOP/B)
 * with the lab's two operations placed on it. Rendered at build time (no client directive): no JS.
 */

const PEAK_TFLOPS = 989;
const BW_TBPS = 3.35;
const X = [-1.5, 4]; // log10 FLOP/byte
const Y = [-1, 3.3]; // log10 TFLOP/s
const W = 320;
const H = 220;
const PAD = { l: 44, r: 10, t: 10, b: 36 };

const sx = (ai: number) => PAD.l + ((Math.log10(ai) - X[0]!) / (X[1]! - X[0]!)) * (W - PAD.l - PAD.r);
const sy = (tf: number) => H - PAD.b - ((Math.log10(tf) - Y[0]!) / (Y[1]! - Y[0]!)) * (H - PAD.t - PAD.b);
const roof = (ai: number) => Math.min(PEAK_TFLOPS, BW_TBPS * ai);

/** The two operations of the memory-vs-compute lab. */
const OPS = [
  { label: 'x + b (bf16): 1/6 FLOP/B', ai: 1 / 6 },
  { label: 'matmul 8192³: ~2,730 FLOP/B', ai: 8192 / 3 },
];

/** The H100 SXM roofline figure (static SVG). */
export default function LabRoofline() {
  const ridge = PEAK_TFLOPS / BW_TBPS;
  const xs = [10 ** X[0]!, ridge, 10 ** X[1]!];
  const path = xs.map((x, i) => `${i ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(roof(x)).toFixed(1)}`).join(' ');
  return (
    <figure className="lab-roofline">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="roofline-cap">
        <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} stroke="currentColor" strokeOpacity="0.4" />
        <line x1={PAD.l} y1={PAD.t} x2={PAD.l} y2={H - PAD.b} stroke="currentColor" strokeOpacity="0.4" />
        <path d={path} fill="none" stroke="var(--accent)" strokeWidth="2.5" />
        <line
          x1={sx(ridge)}
          y1={sy(PEAK_TFLOPS)}
          x2={sx(ridge)}
          y2={H - PAD.b}
          stroke="currentColor"
          strokeDasharray="4 3"
          strokeOpacity="0.5"
        />
        <text x={sx(ridge) + 4} y={H - PAD.b - 6} fontSize="10" fill="currentColor">
          ridge ≈ {Math.round(ridge)}
        </text>
        {OPS.map((o, i) => (
          <g key={o.label}>
            <circle cx={sx(o.ai)} cy={sy(roof(o.ai))} r="5" fill={i ? 'var(--accent)' : 'var(--bad)'} />
            <text
              x={sx(o.ai) + (i ? -6 : 8)}
              y={sy(roof(o.ai)) + (i ? 16 : -8)}
              fontSize="10"
              fill="currentColor"
              textAnchor={i ? 'end' : 'start'}
            >
              {o.label}
            </text>
          </g>
        ))}
        <text x={(W + PAD.l) / 2} y={H - 6} fontSize="10" fill="currentColor" textAnchor="middle">
          arithmetic intensity (FLOP/byte, log)
        </text>
        <text
          x={12}
          y={(H - PAD.b) / 2}
          fontSize="10"
          fill="currentColor"
          textAnchor="middle"
          transform={`rotate(-90 12 ${(H - PAD.b) / 2})`}
        >
          TFLOP/s (log)
        </text>
      </svg>
      <figcaption id="roofline-cap">
        Roofline of an H100 SXM: performance is capped by 3.35 TB/s × intensity below the ridge (about{' '}
        {Math.round(ridge)} FLOP/byte) and by 989 TFLOP/s (dense BF16) above it. An elementwise add sits at about 1/6
        FLOP/byte, reaching at most about {roof(1 / 6).toFixed(2)} TFLOP/s; a large matmul sits far right of the ridge,
        under the compute roof.
      </figcaption>
    </figure>
  );
}

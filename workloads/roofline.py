"""Lab 5: an elementwise chain (memory-bound) and a large matmul (compute-bound), with the numbers
that place each on the roofline: achieved GB/s, TFLOP/s and arithmetic intensity.

    python workloads/roofline.py --op elementwise   # step 1: DRAM activity high, tensor low
    python workloads/roofline.py --op matmul        # step 2: tensor activity high

Reports steps/s (one op per step). Byte counts are the minimum traffic (each tensor read or
written once); caches can only lower them.
"""

from _common import (PROFILED_STEPS, Meter, dense_peak_tflops, import_torch, parser, reporter, require_cuda,
                     step_profiler)

torch = import_torch()


def main() -> None:
    p = parser("Memory-bound vs compute-bound.")
    p.add_argument("--op", choices=["elementwise", "matmul"], default="elementwise")
    p.add_argument("--n", type=int, default=8192, help="matrix size (matmul) or rows×n elements (elementwise)")
    args = p.parse_args()
    require_cuda()
    dev = torch.device(args.device)
    n = args.n
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    if args.op == "elementwise":
        def op():
            return a + b  # 1 FLOP per element; reads 2 × 2 bytes, writes 2 bytes
        flops, nbytes = n * n, 3 * 2 * n * n
    else:
        def op():
            return a @ b
        flops, nbytes = 2 * n**3, 3 * 2 * n * n
    name = torch.cuda.get_device_name(dev)
    meter = Meter(reporter(args.url, f"roofline-{args.op}"), "ops")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    peak = dense_peak_tflops(name)
    print(f"{args.op} on {name}: arithmetic intensity {flops / nbytes:,.2f} FLOP/byte", flush=True)
    reps = 20
    # With --profile, one step is one measurement; until the trace is written each is capped at 50 ops, so the
    # trace holds a few thousand kernels rather than seconds of them.
    steps = 0
    with step_profiler(args.profile, f"roofline-{args.op}") as prof:
        while meter.elapsed() < args.seconds:
            n_ops = min(reps, 50) if args.profile and steps < PROFILED_STEPS else reps
            steps += 1
            start.record()
            for _ in range(n_ops):
                op()
            end.record()
            end.synchronize()
            s = start.elapsed_time(end) / 1000 / n_ops
            reps = max(1, int(1.0 / s))  # about one second of back-to-back ops per measurement
            tflops, gbps = flops / s / 1e12, nbytes / s / 1e9
            if meter.rep:
                meter.rep.post(steps_per_sec=1 / s)
            print(f"{s * 1e6:8.1f} µs/op  {gbps:8.0f} GB/s  {tflops:7.1f} TFLOP/s"
                  + (f"  ({100 * tflops / peak:.0f}% of the {peak:.0f} TFLOP/s dense peak)" if peak else ""), flush=True)
            prof.step()


if __name__ == "__main__":
    main()

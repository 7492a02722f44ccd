"""Lab 6: a sustained bf16 matmul load, to see what a power cap or heat does to clocks and throughput.

    sudo nvidia-smi -pl 400 && python workloads/sustained_load.py   # step 1 (pick a limit in range)
    sudo nvidia-smi -pl <default> && python workloads/sustained_load.py   # step 2

Reports tokens/s: each step multiplies (tokens × d) by (d × d), 2·d² FLOPs per token.
Read the reasons with `nvidia-smi -q -d PERFORMANCE` or on the lab page.
"""

from _common import Meter, import_torch, parser, reporter, require_cuda, step_profiler

torch = import_torch()


def main() -> None:
    p = parser("Sustained load for the throttling lab.")
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--width", type=int, default=8192)
    args = p.parse_args()
    require_cuda()
    dev = torch.device(args.device)
    x = torch.randn(args.tokens, args.width, device=dev, dtype=torch.bfloat16)
    w = torch.randn(args.width, args.width, device=dev, dtype=torch.bfloat16) / args.width**0.5
    meter = Meter(reporter(args.url, "sustained-load", flops_per_unit=2.0 * args.width**2), "tokens")
    print(f"{args.tokens} × {args.width} @ {args.width} × {args.width} bf16 on {torch.cuda.get_device_name(dev)}", flush=True)
    step = 0
    with step_profiler(args.profile, "sustained-load") as prof:
        while meter.elapsed() < args.seconds:
            y = x @ w
            step += 1
            if step % 10 == 0:
                torch.cuda.synchronize(dev)
            meter.add(tokens=args.tokens)
            prof.step()
    del y


if __name__ == "__main__":
    main()

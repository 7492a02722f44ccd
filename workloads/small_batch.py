"""Lab 3: busy in time, not in space. A deep MLP trained at a tiny batch keeps a kernel running
almost all the time (high GPU-Util) while each kernel fills few SMs; a large batch fills them.

    python workloads/small_batch.py --batch-size 1     # step 1
    python workloads/small_batch.py --batch-size 128   # step 2

Reports samples/s. It syncs with the GPU only every 50 steps, as a real loop logging its loss would.
"""

from _common import Meter, import_torch, parser, reporter, require_cuda

torch = import_torch()
import torch.nn as nn  # noqa: E402


def main() -> None:
    p = parser("Small batches: high GPU-Util, low SM activity.")
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--layers", type=int, default=24)
    args = p.parse_args()
    require_cuda()
    dev = torch.device(args.device)
    layers = []
    for _ in range(args.layers):
        layers += [nn.Linear(args.width, args.width), nn.GELU(), nn.LayerNorm(args.width)]
    net = nn.Sequential(*layers, nn.Linear(args.width, 10)).to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    x = torch.randn(args.batch_size, args.width, device=dev)
    y = torch.randint(0, 10, (args.batch_size,), device=dev)
    meter = Meter(reporter(args.url, f"small-batch-bs{args.batch_size}"), "samples")
    print(f"batch {args.batch_size}, {args.layers} layers of {args.width} on {torch.cuda.get_device_name(dev)}", flush=True)
    step = 0
    while meter.elapsed() < args.seconds:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            torch.cuda.synchronize(dev)  # keep the host from running far ahead of the rates it reports
        meter.add(samples=args.batch_size)


if __name__ == "__main__":
    main()

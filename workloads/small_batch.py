"""Lab 3: busy in time, not in space. An MLP over `--seq` positions of `--width` features, trained with
each step replayed as a CUDA Graph: launch overhead is gone, so a kernel runs almost all the time (high
GPU-Util), but at batch 1 each kernel sees only seq x width values, a few thread blocks for the whole GPU
(low SM activity). A larger batch gives every kernel enough blocks to fill the SMs.

    python workloads/small_batch.py --batch-size 1             # step 1
    python workloads/small_batch.py --batch-size 128           # step 2
    python workloads/small_batch.py --batch-size 1 --eager     # launch-bound: GPU-Util itself drops

The graph keeps each kernel's launch shape, so graphs alone never fill the SMs; they only close the gaps.
The capture follows PyTorch's "whole-network capture" recipe (CUDA semantics notes): warm up on a side
stream, set grads to None, capture forward, backward and optimizer.step, then copy new data into the
static inputs and replay. The model runs in bf16 with plain SGD, which that recipe captures as is.
Reports samples/s; it syncs with the GPU only every 50 steps, as a real loop logging its loss would.
"""

from _common import Meter, import_torch, parser, reporter, require_cuda, step_profiler

torch = import_torch()
import torch.nn as nn  # noqa: E402


def main() -> None:
    p = parser("Small batches: high GPU-Util, low SM activity.")
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--seq", type=int, default=256, help="positions per sample (rows each kernel sees per sample)")
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--layers", type=int, default=24)
    p.add_argument("--eager", action="store_true",
                   help="launch every kernel from Python instead of replaying a CUDA Graph (launch-bound at batch 1)")
    args = p.parse_args()
    require_cuda()
    dev = torch.device(args.device)
    layers = []
    for _ in range(args.layers):
        layers += [nn.Linear(args.width, args.width), nn.GELU(), nn.LayerNorm(args.width)]
    net = nn.Sequential(*layers, nn.Linear(args.width, 10)).to(dev, dtype=torch.bfloat16)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    static_x = torch.randn(args.batch_size, args.seq, args.width, device=dev, dtype=torch.bfloat16)
    static_y = torch.randint(0, 10, (args.batch_size * args.seq,), device=dev)

    def step():
        loss = loss_fn(net(static_x).view(-1, 10).float(), static_y)
        loss.backward()
        opt.step()
        return loss

    graph = None
    if not args.eager:
        side = torch.cuda.Stream(dev)
        side.wait_stream(torch.cuda.current_stream(dev))
        with torch.cuda.stream(side):
            for _ in range(3):
                opt.zero_grad(set_to_none=True)
                step()
        torch.cuda.current_stream(dev).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=True)  # backward inside the capture allocates .grad from the graph's pool
        with torch.cuda.graph(graph):
            step()

    label = f"small-batch-bs{args.batch_size}{'-eager' if args.eager else ''}"
    meter = Meter(reporter(args.url, label), "samples")
    print(f"batch {args.batch_size} x {args.seq} positions, {args.layers} layers of {args.width}, "
          f"{'eager' if args.eager else 'CUDA Graph replay'} on {torch.cuda.get_device_name(dev)}", flush=True)
    n = 0
    with step_profiler(args.profile, label) as prof:
        while meter.elapsed() < args.seconds:
            static_x.normal_()  # new data in the captured input's memory, as a real loop would copy_ a batch in
            if graph is not None:
                graph.replay()
            else:
                opt.zero_grad(set_to_none=True)
                step()
            n += 1
            if n % 50 == 0:
                torch.cuda.synchronize(dev)  # keep the host from running far ahead of the rates it reports
            meter.add(samples=args.batch_size)
            prof.step()


if __name__ == "__main__":
    main()

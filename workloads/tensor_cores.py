"""Lab 4: the same model in fp32 (no Tensor Cores: TF32 off) and in bf16 autocast.

    python workloads/tensor_cores.py --dtype fp32   # step 1: FP32 pipe busy, tensor activity ~0
    python workloads/tensor_cores.py --dtype bf16   # step 2: Tensor Cores busy, tokens/s up

Reports tokens/s and FLOPs per token (6N for the MLP stack).
"""

from _common import Meter, import_torch, parser, reporter, require_cuda, step_profiler

torch = import_torch()
import torch.nn as nn  # noqa: E402


def main() -> None:
    p = parser("fp32 vs bf16 autocast.")
    p.add_argument("--dtype", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--tokens", type=int, default=8192, help="tokens per step (rows of the activation)")
    p.add_argument("--width", type=int, default=4096)
    p.add_argument("--layers", type=int, default=8)
    args = p.parse_args()
    require_cuda()
    # fp32 must really be fp32: TF32 would quietly use the Tensor Cores.
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device(args.device)
    blocks = [nn.Sequential(nn.Linear(args.width, 4 * args.width), nn.GELU(), nn.Linear(4 * args.width, args.width)) for _ in range(args.layers)]
    net = nn.Sequential(*blocks).to(dev)
    n_params = sum(p.numel() for p in net.parameters())
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4, fused=True)
    x = torch.randn(args.tokens, args.width, device=dev)
    rep = reporter(args.url, f"tensor-cores-{args.dtype}", flops_per_unit=6.0 * n_params)
    meter = Meter(rep, "tokens")
    print(f"{args.dtype}: {n_params / 1e6:.0f}M parameters, {args.tokens} tokens/step on {torch.cuda.get_device_name(dev)}", flush=True)
    step = 0
    with step_profiler(args.profile, f"tensor-cores-{args.dtype}") as prof:
        while meter.elapsed() < args.seconds:
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.dtype == "bf16"):
                loss = net(x).float().pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                torch.cuda.synchronize(dev)
            meter.add(tokens=args.tokens)
            prof.step()


if __name__ == "__main__":
    main()

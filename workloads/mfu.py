"""Lab 7: train a small GPT on random tokens and measure MFU from tokens/s.

    python workloads/mfu.py --dtype fp32   # step 1
    python workloads/mfu.py --dtype bf16   # step 2

FLOPs per token follow PaLM Appendix B (as nanoGPT's estimate_mfu): 6N + 12·L·H·Q·T, with N the
parameters outside the token and position embeddings (the untied output head counts). With the defaults:
N = 12 x 12,596,224 + 2,048 + 1,024 x 32,768 = 184,711,168, and 6N + 12*12*16*64*1024 = 1.259e9 FLOPs
per token (src/lib/lab/physics.ts computes the same; the lab text quotes it). MFU divides by the GPU's
DENSE BF16 peak (H100 SXM/H200 989.4, A100 312 TFLOP/s), never the 2:4-sparse figure; for the fp32 run
that is on purpose (what staying in fp32 costs). Reports tokens/s and FLOPs per token to the lab server.
"""

from _common import Meter, dense_peak_tflops, import_torch, parser, reporter, require_cuda, step_profiler

torch = import_torch()
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, d: int, layers: int, heads: int, seq: int):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def main() -> None:
    p = parser("Measure MFU from tokens/s.")
    p.add_argument("--dtype", choices=["fp32", "bf16"], default="bf16")
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--d-model", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--vocab", type=int, default=32768)
    args = p.parse_args()
    require_cuda()
    torch.set_float32_matmul_precision("highest")  # fp32 means fp32 here: no TF32
    dev = torch.device(args.device)
    model = GPT(args.vocab, args.d_model, args.layers, args.heads, args.seq).to(dev)
    n = sum(p.numel() for p in model.parameters()) - model.tok.weight.numel() - model.pos.weight.numel()
    flops_per_token = 6 * n + 12 * args.layers * args.heads * (args.d_model // args.heads) * args.seq
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
    name = torch.cuda.get_device_name(dev)
    peak = dense_peak_tflops(name)
    print(f"{args.dtype}: N = {n / 1e6:.0f}M non-embedding parameters, {flops_per_token:.3g} FLOPs/token, on {name}"
          + (f" (dense BF16 peak {peak:.1f} TFLOP/s)" if peak else " (dense peak unknown: MFU not printed)"), flush=True)
    meter = Meter(reporter(args.url, f"gpt-{args.dtype}", flops_per_unit=flops_per_token), "tokens")
    tokens_per_step = args.batch * args.seq
    step, window_tokens, window_start = 0, 0, meter.elapsed()
    with step_profiler(args.profile, f"gpt-{args.dtype}") as prof:
        while meter.elapsed() < args.seconds:
            idx = torch.randint(0, args.vocab, (args.batch, args.seq + 1), device=dev)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.dtype == "bf16"):
                logits = model(idx[:, :-1])
                loss = F.cross_entropy(logits.float().view(-1, args.vocab), idx[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            window_tokens += tokens_per_step
            if step % 10 == 0:
                torch.cuda.synchronize(dev)
                now = meter.elapsed()
                if peak and now - window_start >= 5:
                    tps = window_tokens / (now - window_start)
                    print(f"{tps:,.0f} tokens/s  MFU {100 * tps * flops_per_token / (peak * 1e12):.1f}%", flush=True)
                    window_tokens, window_start = 0, now
            meter.add(tokens=tokens_per_step)
            prof.step()


if __name__ == "__main__":
    main()

"""Lab 2: a training loop starved by CPU-side data loading, then fed.

    python workloads/dataloader.py --num-workers 0                 # step 1: sawtooth, one core pegged
    python workloads/dataloader.py --num-workers 8 --pin-memory    # step 2: fed

Each sample costs real CPU time (a synthetic "decode + augment" on one thread), like JPEG decoding.
By default that cost is calibrated at start so one core needs about 6 GPU steps to prepare a batch:
with 0 workers the GPU waits ~6/7 of the time, with 8 workers it is fed (the lab's numbers).
Pass --cpu-ms-per-sample to set it yourself. Reports samples/s to the lab server.
"""

import time

from _common import Meter, import_torch, parser, reporter, require_cuda, step_profiler

torch = import_torch()
import torch.nn as nn  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402


class SyntheticImages(Dataset):
    """Random 3×224×224 images whose preparation costs CPU time, as decoding JPEGs does."""

    def __init__(self, length: int = 1_000_000, work: int = 1):
        self.length, self.work = length, work

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        raw = torch.randint(0, 256, (3, 256, 256), dtype=torch.uint8, generator=g)
        x = raw.float()
        for _ in range(self.work):  # stand-in for decode + augmentation: CPU-bound, single thread
            x = torch.fft.irfft2(torch.fft.rfft2(x), s=x.shape[-2:])
        top, left = int(i % 32), int((i // 32) % 32)
        x = x[:, top:top + 224, left:left + 224]
        x = (x - x.mean()) / (x.std() + 1e-6)
        return x.contiguous(), i % 1000


def fft_round_ms() -> float:
    """Milliseconds one decode-like FFT round takes on one thread."""
    x = torch.rand(3, 256, 256)
    start = time.perf_counter()
    for _ in range(20):
        x = torch.fft.irfft2(torch.fft.rfft2(x), s=x.shape[-2:])
    return (time.perf_counter() - start) * 1000 / 20


def gpu_step_ms(net, opt, dev, batch: int) -> float:
    """Milliseconds of one training step with the data already on the GPU."""
    x = torch.randn(batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device=dev)
    for i in range(15):
        if i == 5:
            torch.cuda.synchronize(dev)
            start = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize(dev)
    return (time.perf_counter() - start) * 1000 / 10


def single_thread(_worker_id: int) -> None:
    torch.set_num_threads(1)


def model() -> nn.Module:
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
    return nn.Sequential(block(3, 64), block(64, 128), block(128, 256), block(256, 512), block(512, 512),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000))


def main() -> None:
    p = parser("Data-loader starvation: num_workers and pin_memory.")
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--pin-memory", action="store_true")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--cpu-ms-per-sample", type=float, default=None, help="CPU cost per sample (default: calibrated)")
    args = p.parse_args()
    require_cuda()
    torch.set_num_threads(1)  # num_workers=0 decodes in this process, on one core
    dev = torch.device(args.device)
    net = model().to(dev, memory_format=torch.channels_last)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    step_ms = gpu_step_ms(net, opt, dev, args.batch_size)
    per_sample = args.cpu_ms_per_sample if args.cpu_ms_per_sample is not None else 6 * step_ms / args.batch_size
    rounds = max(1, round(per_sample / fft_round_ms()))
    print(f"GPU step {step_ms:.0f} ms; one core prepares a batch in about {per_sample * args.batch_size:.0f} ms "
          f"({rounds} FFT rounds per sample): about {per_sample * args.batch_size / step_ms:.0f} workers keep the GPU fed.", flush=True)
    loader = DataLoader(SyntheticImages(work=rounds), batch_size=args.batch_size, shuffle=False, num_workers=args.num_workers,
                        pin_memory=args.pin_memory, persistent_workers=args.num_workers > 0,
                        worker_init_fn=single_thread if args.num_workers > 0 else None)
    label = f"dataloader-w{args.num_workers}{'-pin' if args.pin_memory else ''}"
    meter = Meter(reporter(args.url, label), "samples")
    print(f"{label}: batch {args.batch_size} on {torch.cuda.get_device_name(dev)}", flush=True)
    # With --profile, the trace shows each step's wait in enumerate(DataLoader)#...__next__.
    with step_profiler(args.profile, label) as prof:
        for x, y in meter.timed(loader):  # reports dataWaitFraction: the diagnosis reads starvation from it
            x = x.to(dev, non_blocking=args.pin_memory).to(memory_format=torch.channels_last)
            y = y.to(dev, non_blocking=args.pin_memory)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(net(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.add(samples=x.shape[0])
            prof.step()
            if meter.elapsed() > args.seconds:
                break


if __name__ == "__main__":
    main()

"""Shared helpers for the lab workloads: CUDA check, throughput reporter, timed loop, profiler trace.

Every workload exits with a clear message when PyTorch or a CUDA device is missing:
exit code 2 = PyTorch not installed, 3 = no CUDA device. Throughput goes to the lab server through
python/saturate_report.py (standard library only) when --url or SATURATE_URL is set.
With --profile DIR, a workload records a few steps with torch.profiler and writes one Kineto trace,
DIR/<label>.pt.trace.json.gz, for the /trace/ page or `npm run trace -- FILE`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

EXIT_NO_TORCH = 2
EXIT_NO_CUDA = 3


def import_torch():
    """Returns the torch module, or exits (code 2) saying how to get it."""
    try:
        import torch  # noqa: PLC0415 (imported here so the message below can be printed without torch)
    except ImportError:
        print("PyTorch is not installed: `pip install torch` (a CUDA build), or run this lab in the "
              "simulator on the lab page (no GPU needed).", file=sys.stderr)
        sys.exit(EXIT_NO_TORCH)
    return torch


def require_cuda():
    """Returns the torch module, or exits (code 2 or 3) saying what is missing and what to do."""
    torch = import_torch()
    if not torch.cuda.is_available():
        print("No CUDA device found: this workload needs an NVIDIA GPU with a working driver "
              "(check `nvidia-smi`). Without one, run the lab in the simulator on the lab page.", file=sys.stderr)
        sys.exit(EXIT_NO_CUDA)
    return torch


def parser(description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every workload shares."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--url", default=os.environ.get("SATURATE_URL"),
                   help="the URL the lab server printed (with ?token=...); default $SATURATE_URL")
    p.add_argument("--seconds", type=float, default=180.0, help="how long to run (default 180)")
    p.add_argument("--device", default="cuda:0", help="CUDA device (default cuda:0)")
    p.add_argument("--profile", metavar="DIR", type=profile_dir, default=None,
                   help="record a few steps with torch.profiler and write a Kineto trace to DIR "
                        "(open it at /trace/ or with `npm run trace -- FILE`)")
    return p


# torch.profiler's schedule (torch.profiler.schedule(skip_first, wait, warmup, active, repeat)): skip the first
# steps (allocation, cuDNN/cuBLAS heuristics, clocks ramping), wait one, warm the profiler up for two (its first
# recorded steps carry its own start-up cost), record three, once. Eleven steps in all; each workload's step
# (a training step, a replay, one measurement) is one `prof.step()`.
PROFILE_SCHEDULE = {"skip_first": 5, "wait": 1, "warmup": 2, "active": 3, "repeat": 1}
# Steps until the trace is written: 5 + 1 + 2 + 3 = 11.
PROFILED_STEPS = sum(v for k, v in PROFILE_SCHEDULE.items() if k != "repeat")


def profile_dir(value: str) -> Path:
    """The --profile argument: a folder (created if missing), never an existing file."""
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"--profile wants a folder for the trace, and {value} is a file")
    return path


def trace_path(directory: Path, label: str) -> Path:
    """Where the trace of a run labelled `label` goes: DIR/<label>.pt.trace.json.gz (a safe file name)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "run"
    return Path(directory) / f"{safe}.pt.trace.json.gz"


class _NoProfiler:
    """Stands in for the profiler when --profile is not given: step() does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def step(self) -> None:
        return None


def step_profiler(directory: Path | None, label: str):
    """A context manager whose step() marks each step: with a DIR, torch.profiler with PROFILE_SCHEDULE, CPU and
    CUDA activities, writing one gzipped Chrome/Kineto trace when the active steps end (or at exit, if the run ends
    first); without one, a no-op."""
    if directory is None:
        return _NoProfiler()
    import torch  # noqa: PLC0415 (the workloads import torch first; here only when profiling)
    from torch.profiler import ProfilerActivity, profile, schedule  # noqa: PLC0415

    directory.mkdir(parents=True, exist_ok=True)
    out = trace_path(directory, label)

    def write(prof) -> None:
        prof.export_chrome_trace(str(out))  # a path ending in .gz is written gzipped
        print(f"Wrote a trace of {PROFILE_SCHEDULE['active']} steps to {out}: open it at /trace/ "
              f"or run `npm run trace -- {out}`.", flush=True)

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    return profile(activities=activities, schedule=schedule(**PROFILE_SCHEDULE), on_trace_ready=write)


def reporter(url: str | None, label: str, flops_per_unit: float | None = None):
    """A Reporter posting to the lab server, or None (with a note) when no URL is given."""
    if not url:
        print("Not reporting throughput: pass --url or set SATURATE_URL to the lab server's URL.", file=sys.stderr)
        return None
    from saturate_report import Reporter  # noqa: PLC0415
    return Reporter(url, label=label, flops_per_unit=flops_per_unit)


class Meter:
    """Counts work and prints a rate every few seconds; forwards counts to the reporter."""

    def __init__(self, rep, unit: str, every_s: float = 5.0):
        self.rep, self.unit, self.every_s = rep, unit, every_s
        self.start = self.last = time.monotonic()
        self.count = self.total = 0

    def add(self, samples: int = 0, tokens: int = 0) -> None:
        if self.rep:
            self.rep.step(samples=samples, tokens=tokens)
        self.count += samples or tokens
        self.total += samples or tokens
        now = time.monotonic()
        if now - self.last >= self.every_s:
            print(f"{self.count / (now - self.last):,.0f} {self.unit}/s", flush=True)
            self.count, self.last = 0, now

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def timed(self, loader):
        """The loader's batches; with a reporter, each report also carries the share of time spent waiting for them."""
        return self.rep.timed(loader) if self.rep else iter(loader)


# Dense BF16 Tensor Core peaks by GPU name, a copy of src/lib/gpu-specs.ts: every NVML name the table lists,
# normalised as normalise_gpu_name does. test/unit/lab-numbers.test.ts fails when the two differ.
DENSE_BF16_TFLOPS: dict[str, float | None] = {
    "a10": 125.0,  # A10
    "a10g": 70.0,  # A10G
    "a30": 165.0,  # A30
    "a40": 149.7,  # A40
    "a100-pcie-40gb": 312.0,  # A100 PCIe 40GB
    "a100 80gb pcie": 312.0,  # A100 PCIe 80GB
    "a100-sxm4-40gb": 312.0,  # A100 SXM 40GB
    "a100-sxm4-80gb": 312.0,  # A100 SXM 80GB
    "a100-sxm-80gb": 312.0,  # A100 SXM 80GB
    "rtx a6000": 154.8,  # RTX A6000
    "h100 pcie": 756.0,  # H100 PCIe
    "h100 80gb hbm3": 989.4,  # H100 SXM
    "h100 nvl": 835.5,  # H100 NVL
    "h200": 989.4,  # H200 SXM
    "h200 nvl": 835.5,  # H200 NVL
    "gh200 480gb": 989.4,  # GH200 96GB HBM3
    "gh200 144g hbm3e": 989.4,  # GH200 144GB HBM3e
    "l4": 121.0,  # L4
    "l40": 181.05,  # L40
    "l40s": 362.05,  # L40S
    "rtx 6000 ada generation": 364.2,  # RTX 6000 Ada
    "geforce rtx 4090": 165.2,  # GeForce RTX 4090
    "b200": 2250.0,  # B200 (HGX)

}


def normalise_gpu_name(name: str) -> str:
    """The table's matching form, as gpu-specs.ts normaliseGpuName: trimmed, one space, lower case, no "NVIDIA "."""
    key = re.sub(r"\s+", " ", name.strip()).lower()
    return key[len("nvidia "):] if key.startswith("nvidia ") else key


def dense_peak_tflops(name: str) -> float | None:
    """Dense BF16 Tensor Core peak in TFLOP/s (never the 2:4-sparse figure), as src/lib/gpu-specs.ts gives it.

    Matched exactly after normalisation, never by substring: "NVIDIA GH200 480GB" is not an H200, "NVIDIA H100 NVL"
    not an H100 SXM. None for a model the table does not list (an unknown model).
    """
    return DENSE_BF16_TFLOPS.get(normalise_gpu_name(name))

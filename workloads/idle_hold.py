"""Lab 1: hold GPU memory and do nothing, like a forgotten notebook kernel.

    python workloads/idle_hold.py --hold-gib 30                    # step 1: allocated, idle
    python workloads/idle_hold.py --hold-gib 30 --release-after 60 # frees it after 60 s (step 2)

Ctrl+C releases the memory and exits. Nothing is reported: there is no useful work to report.
"""

import time

from _common import parser, require_cuda, step_profiler


def main() -> None:
    p = parser("Allocate GPU memory and sit idle.")
    p.add_argument("--hold-gib", type=float, default=30.0, help="GiB to allocate (default 30)")
    p.add_argument("--release-after", type=float, default=None, help="free the memory after this many seconds")
    args = p.parse_args()
    torch = require_cuda()
    dev = torch.device(args.device)
    free, total = torch.cuda.mem_get_info(dev)
    want = int(min(args.hold_gib * 1024**3, free * 0.9))
    block = torch.empty(want, dtype=torch.uint8, device=dev)
    block.fill_(1)  # touch it once, then never again
    torch.cuda.synchronize(dev)
    print(f"Holding {want / 1024**3:.1f} GiB of {total / 1024**3:.0f} GiB on {torch.cuda.get_device_name(dev)}; "
          "running nothing. Ctrl+C to release.", flush=True)
    try:
        start = time.monotonic()
        # With --profile, each idle second is a step: the trace holds no GPU work at all (`npm run trace` says
        # "no GPU activity", exit 3), which is what an allocated, idle GPU is.
        with step_profiler(args.profile, "idle-hold") as prof:
            while args.release_after is None or time.monotonic() - start < args.release_after:
                time.sleep(1)
                prof.step()
        print("Releasing the memory (del + torch.cuda.empty_cache()).", flush=True)
        del block
        torch.cuda.empty_cache()
        time.sleep(min(30.0, args.seconds))
    except KeyboardInterrupt:
        print("Released.")


if __name__ == "__main__":
    main()

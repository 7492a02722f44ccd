"""Runs Holistic Trace Analysis (HTA) on one trace and prints its figures as one JSON line.

Usage: HTA_DIR=/path/to/HolisticTraceAnalysis python3 bench/hta_driver.py <trace.json.gz> [runs]

Imports HTA from HTA_DIR (its source checkout; nothing is installed), then, `runs` times (default 1) in this
one process, times TraceAnalysis(trace_dir) (reading and parsing the file) plus get_temporal_breakdown and
get_idle_time_breakdown, and keeps the best wall time and, separately, the best CPU time. Prints
{"ok": true, "seconds": best load+analysis wall time, "cpuSeconds": best CPU time (threads and worker
processes), "runs": runs, "temporal": {...}, "idle": [{stream, idle_category, idle_time, idle_time_ratio}]}
or {"ok": false, "error": "..."} when HTA cannot analyse the trace.
"""
import json
import logging
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.environ["HTA_DIR"])
logging.disable(logging.WARNING)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children: HTA parses traces in a multiprocessing pool."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run_once(folder: str):
    """One timed run: HTA's load of the folder and the two analyses the parity table compares."""
    from hta.trace_analysis import TraceAnalysis

    analyzer = TraceAnalysis(trace_dir=folder)
    temporal = analyzer.get_temporal_breakdown(visualize=False)
    rank = int(temporal["rank"].iloc[0])
    idle, _ = analyzer.get_idle_time_breakdown(ranks=[rank], visualize=False)
    return temporal, rank, idle


def main(path: str, runs: int) -> None:
    # HTA reads every trace file in a folder: give it a folder holding this one file.
    folder = tempfile.mkdtemp(prefix="hta-")
    try:
        shutil.copy(path, os.path.join(folder, os.path.basename(path)))
        start = time.perf_counter()
        from hta.trace_analysis import TraceAnalysis

        imported = time.perf_counter()
        best = cpu = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            cpu0 = cpu_seconds()
            temporal, rank, idle = run_once(folder)
            best = min(best, time.perf_counter() - t0)
            cpu = min(cpu, cpu_seconds() - cpu0)
        row = temporal.iloc[0]
        print(
            json.dumps(
                {
                    "ok": True,
                    "seconds": best,
                    "runs": runs,
                    "cpuSeconds": cpu,
                    "importSeconds": imported - start,
                    "rank": rank,
                    "temporal": {
                        "idlePct": float(row["idle_time_pctg"]),
                        "computePct": float(row["compute_time_pctg"]),
                        "nonComputePct": float(row["non_compute_time_pctg"]),
                        "spanUs": float(row["kernel_time(us)"]),
                    },
                    "idle": [
                        {
                            "stream": int(r["stream"]),
                            "category": str(r["idle_category"]),
                            "us": float(r["idle_time"]),
                        }
                        for _, r in idle.iterrows()
                    ],
                }
            )
        )
    except Exception as e:  # HTA's own failure is a result here, not a crash
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"[:300]}))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)

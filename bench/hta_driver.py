"""Runs Holistic Trace Analysis (HTA) on one trace and prints its figures as one JSON line.

Usage: HTA_DIR=/path/to/HolisticTraceAnalysis python3 bench/hta_driver.py <trace.json.gz>

Imports HTA from HTA_DIR (its source checkout; nothing is installed). Prints
{"ok": true, "seconds": load+analysis time, "cpuSeconds": its CPU time (threads and worker processes), "temporal": {...}, "idle": [{stream, idle_category, idle_time, idle_time_ratio}]}
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


def main(path: str) -> None:
    # HTA reads every trace file in a folder: give it a folder holding this one file.
    folder = tempfile.mkdtemp(prefix="hta-")
    try:
        shutil.copy(path, os.path.join(folder, os.path.basename(path)))
        start = time.perf_counter()
        from hta.trace_analysis import TraceAnalysis

        imported = time.perf_counter()
        cpu0 = cpu_seconds()
        analyzer = TraceAnalysis(trace_dir=folder)
        temporal = analyzer.get_temporal_breakdown(visualize=False)
        rank = int(temporal["rank"].iloc[0])
        idle, _ = analyzer.get_idle_time_breakdown(ranks=[rank], visualize=False)
        end = time.perf_counter()
        cpu = cpu_seconds() - cpu0
        row = temporal.iloc[0]
        print(
            json.dumps(
                {
                    "ok": True,
                    "seconds": end - imported,
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
    main(sys.argv[1])

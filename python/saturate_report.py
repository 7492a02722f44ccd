"""Report training throughput to the Saturate lab server, so labs can show samples/s, MFU and cost.

Dependency-free (standard library only). Usage in a training loop::

    from saturate_report import Reporter

    # The URL and token the lab server printed, e.g. http://127.0.0.1:8790/?token=abc...
    rep = Reporter("http://127.0.0.1:8790/?token=abc123...", label="resnet50-bs256")
    for step, batch in enumerate(loader):
        loss = train_step(batch)
        rep.step(samples=len(batch))          # counts; posts at most once a second

Or post one rate yourself: ``rep.post(samples_per_sec=1234.5, tokens_per_sec=None)``.
The URL may also come from the SATURATE_URL environment variable. Reporting never raises into
your training loop: a server that is down or slow is ignored (a warning is printed once).
Only loopback hosts are allowed unless ``allow_remote=True``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Reporter"]

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class Reporter:
    """Accumulates samples/tokens/steps and POSTs rates to ``/api/throughput``."""

    def __init__(self, url: str | None = None, token: str | None = None, label: str | None = None,
                 interval_s: float = 1.0, flops_per_unit: float | None = None, allow_remote: bool = False,
                 timeout_s: float = 0.5):
        url = url or os.environ.get("SATURATE_URL", "")
        if not url:
            raise ValueError("Pass the URL the lab server printed, or set SATURATE_URL.")
        parts = urllib.parse.urlsplit(url)
        query = urllib.parse.parse_qs(parts.query)
        self.token = token or (query.get("token") or [""])[0] or os.environ.get("SATURATE_TOKEN", "")
        if not self.token:
            raise ValueError("No token: use the full URL the lab server printed (it ends in ?token=...).")
        host = (parts.hostname or "").lower()
        if host not in _LOOPBACK and not host.startswith("127.") and not allow_remote:
            raise ValueError(f"{host} is not loopback; pass allow_remote=True if you really mean it.")
        self.endpoint = urllib.parse.urlunsplit((parts.scheme or "http", parts.netloc, "/api/throughput", "", ""))
        self.label = label
        self.interval_s = interval_s
        self.flops_per_unit = flops_per_unit
        self.timeout_s = timeout_s
        self._since = time.monotonic()
        self._samples = self._tokens = self._steps = 0
        self._warned = False

    def step(self, samples: int = 0, tokens: int = 0, steps: int = 1) -> None:
        """Counts one optimizer step; posts the rates when ``interval_s`` has passed."""
        self._samples += samples
        self._tokens += tokens
        self._steps += steps
        elapsed = time.monotonic() - self._since
        if elapsed >= self.interval_s:
            self.post(
                samples_per_sec=self._samples / elapsed if self._samples else None,
                tokens_per_sec=self._tokens / elapsed if self._tokens else None,
                steps_per_sec=self._steps / elapsed if self._steps else None,
            )
            self._since = time.monotonic()
            self._samples = self._tokens = self._steps = 0

    def post(self, samples_per_sec: float | None = None, tokens_per_sec: float | None = None,
             steps_per_sec: float | None = None) -> bool:
        """Sends one report; returns True when the server accepted it."""
        body = {k: v for k, v in {
            "samplesPerSec": samples_per_sec, "tokensPerSec": tokens_per_sec, "stepsPerSec": steps_per_sec,
            "flopsPerUnit": self.flops_per_unit, "label": self.label,
        }.items() if v is not None}
        req = urllib.request.Request(self.endpoint, data=json.dumps(body).encode(), method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.token}",
        })
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as res:
                return 200 <= res.status < 300
        except (urllib.error.URLError, OSError, ValueError) as e:
            if not self._warned:
                print(f"saturate_report: could not reach the lab server ({e}); continuing without it.", file=sys.stderr)
                self._warned = True
            return False


if __name__ == "__main__":
    # Smoke test: python saturate_report.py URL  -> posts 1000 samples/s once.
    ok = Reporter(sys.argv[1] if len(sys.argv) > 1 else None, label="smoke").post(samples_per_sec=1000.0)
    print("accepted" if ok else "not accepted")
    sys.exit(0 if ok else 1)

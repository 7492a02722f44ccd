"""Report training throughput to the Saturate lab server, so labs can show samples/s, MFU and cost.

Dependency-free (standard library only). Usage in a training loop::

    from saturate_report import Reporter

    # The URL and token the lab server printed, e.g. http://127.0.0.1:8790/?token=abc...
    rep = Reporter("http://127.0.0.1:8790/?token=abc123...", label="resnet50-bs256")
    for step, batch in enumerate(loader):
        loss = train_step(batch)
        rep.step(samples=len(batch))          # counts; posts at most once a second

Wrap the DataLoader in ``rep.timed(...)`` and each report also says what share of the time the loop
waited for its next batch (``dataWaitFraction``), the reading that decides data starvation::

    for batch in rep.timed(loader):          # times every next() on the loader
        loss = train_step(batch)
        rep.step(samples=len(batch))

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
                 timeout_s: float = 0.5, clock=time.monotonic):
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
        self._clock = clock  # injectable for tests; seconds, monotonic
        self._since = clock()
        self._samples = self._tokens = self._steps = 0
        self._data_wait_s = 0.0
        self._timing = False
        self._warned = False

    def timed(self, loader):
        """Yields the loader's items, timing each ``next()``: the wait joins the next report as a fraction."""
        self._timing = True
        it = iter(loader)
        while True:
            start = self._clock()
            try:
                item = next(it)
            except StopIteration:
                return
            finally:
                self._data_wait_s += self._clock() - start
            yield item

    def step(self, samples: int = 0, tokens: int = 0, steps: int = 1, data_wait_s: float | None = None) -> None:
        """Counts one optimizer step; posts the rates when ``interval_s`` has passed.

        ``data_wait_s`` adds time this step waited for data, for loops that time their loader themselves
        (``timed()`` does it for you).
        """
        self._samples += samples
        self._tokens += tokens
        self._steps += steps
        if data_wait_s is not None:
            if data_wait_s < 0:
                raise ValueError("data_wait_s is a duration in seconds and cannot be negative.")
            self._timing = True
            self._data_wait_s += data_wait_s
        elapsed = self._clock() - self._since
        if elapsed >= self.interval_s:
            self.post(
                samples_per_sec=self._samples / elapsed if self._samples else None,
                tokens_per_sec=self._tokens / elapsed if self._tokens else None,
                steps_per_sec=self._steps / elapsed if self._steps else None,
                data_wait_fraction=min(1.0, self._data_wait_s / elapsed) if self._timing else None,
            )
            self._since = self._clock()
            self._samples = self._tokens = self._steps = 0
            self._data_wait_s = 0.0

    def post(self, samples_per_sec: float | None = None, tokens_per_sec: float | None = None,
             steps_per_sec: float | None = None, data_wait_fraction: float | None = None) -> bool:
        """Sends one report; returns True when the server accepted it.

        ``data_wait_fraction`` is the share of wall time (0 to 1) the loop waited for its next batch.
        """
        if data_wait_fraction is not None and not 0.0 <= data_wait_fraction <= 1.0:
            raise ValueError(f"data_wait_fraction is a share of time between 0 and 1, got {data_wait_fraction}.")
        body = {k: v for k, v in {
            "samplesPerSec": samples_per_sec, "tokensPerSec": tokens_per_sec, "stepsPerSec": steps_per_sec,
            "dataWaitFraction": data_wait_fraction, "flopsPerUnit": self.flops_per_unit, "label": self.label,
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

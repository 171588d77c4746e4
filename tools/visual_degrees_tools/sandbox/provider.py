"""What every provider over the photo web shares: the web, a clock that charges its latency, the
fault plan, and a count of calls (failed ones included)."""

from __future__ import annotations

from visual_degrees_tools.sandbox.clock import LATENCIES, Latencies, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultInjector
from visual_degrees_tools.sandbox.photoweb import PhotoWeb


class WebProvider:
    def __init__(
        self,
        web: PhotoWeb,
        *,
        clock: VirtualClock | None = None,
        faults: FaultInjector | None = None,
        latencies: Latencies = LATENCIES,
    ) -> None:
        self.web = web
        self.clock = clock or VirtualClock()
        self.faults = faults or FaultInjector()
        self.latencies = latencies
        self.calls = 0

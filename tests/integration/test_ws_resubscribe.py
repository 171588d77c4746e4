"""A connection that subscribes to a run again while its first subscription is still reading the
log: the first one's replay must not arrive after the second `subscribed`. The log reader is gated,
so the race is exact rather than left to the machine's load."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from tests.integration.test_ws_broker import RUN, event
from visual_degrees_tools.local.server.broker import Broker, Published
from visual_degrees_tools.local.server.session import Session


class Wire:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    async def send(self, message: str) -> None:
        self.frames.append(json.loads(message))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


def test_a_second_subscribe_cancels_the_first_ones_replay_still_in_flight() -> None:
    async def scenario() -> list[dict[str, Any]]:
        stored = [event(n) for n in range(1, 6)]
        first_read_may_end = asyncio.Event()
        reads = 0

        async def read(run_id: str, from_seq: int) -> list[Published]:
            nonlocal reads
            reads += 1
            if reads == 1:  # the first subscription's read is slow
                await first_read_may_end.wait()
            return [e for e in stored if e.seq >= from_seq]

        wire = Wire()
        offload = cast(Any, None)
        session = Session(wire, cast(Any, None), Broker(read), offload)
        # Given a subscription from seq 2 whose log read is still in flight
        for from_seq in (2, 5):
            # When the client subscribes again from seq 5 (as the server does it: room, reply, follow)
            session.make_room(RUN)
            session.outbox.push_json({"type": "subscribed", "runId": RUN, "fromSeq": from_seq})
            session.follow(RUN, from_seq)
            await asyncio.sleep(0.01)
        first_read_may_end.set()
        await asyncio.sleep(0.05)
        return wire.frames

    frames = asyncio.run(scenario())
    # Then after the second reply come only the events from seq 5, once
    second = frames.index({"type": "subscribed", "runId": RUN, "fromSeq": 5})
    assert [f["seq"] for f in frames[second + 1 :]] == [5]

"""A connection that subscribes to a run again while its first subscription is still reading the
log: the first one's replay comes whole before the second `subscribed`, never after it. The log
reader is gated, so the race is exact rather than left to the machine's load."""

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


def test_a_second_subscribe_waits_for_the_first_ones_replay_still_in_flight() -> None:
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
        session = Session(wire, cast(Any, None), Broker(read), cast(Any, None))

        async def subscribe(from_seq: int) -> None:  # as the server does it: settle, reply, follow
            await session.settle(RUN)
            session.outbox.push_json({"type": "subscribed", "runId": RUN, "fromSeq": from_seq})
            session.follow(RUN, from_seq)

        # Given a subscription from seq 2 whose log read is still in flight
        await subscribe(2)
        await asyncio.sleep(0.01)
        # When the client subscribes again from seq 5, and only then the first read ends
        second = asyncio.create_task(subscribe(5))
        await asyncio.sleep(0.01)
        first_read_may_end.set()
        await second
        await asyncio.sleep(0.05)
        return wire.frames

    frames = asyncio.run(scenario())
    # Then the first replay (2..5) comes whole before the second reply, and after it only 5, once
    acks = [i for i, f in enumerate(frames) if f.get("type") == "subscribed"]
    assert [frames[i]["fromSeq"] for i in acks] == [2, 5]
    assert [f["seq"] for f in frames[acks[0] + 1 : acks[1]]] == [2, 3, 4, 5]
    assert [f["seq"] for f in frames[acks[1] + 1 :]] == [5]

"""The subscription broker in-process: replay-then-live merged without gap or duplicate, whatever
arrives while the stored log is being read. The log reader is scripted, so each race is exact."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from visual_degrees.domain.models import EventType, RunEvent
from visual_degrees_tools.local.server.broker import Broker, BrokerSink, Published

RUN = "run-1"


def event(seq: int, type_: EventType = "status") -> Published:
    return Published.of(RunEvent(run_id=RUN, seq=seq, type=type_, ts="2024-01-01T00:00:00Z"))


def seqs_of(texts: list[str]) -> list[int]:
    return [int(text.split('"seq":')[1].split(",")[0]) for text in texts]


def log_of(stored: list[Published], during_read: Callable[[], None] = lambda: None) -> Callable:
    async def read(run_id: str, from_seq: int) -> list[Published]:
        during_read()
        await asyncio.sleep(0)  # the read is in flight: other callbacks run now
        return [e for e in stored if e.run_id == run_id and e.seq >= from_seq]

    return read


def test_events_published_during_the_replay_are_sent_once_in_order() -> None:
    async def scenario() -> list[str]:
        # Given a log holding 1..4 when it is read, while 3, 4 and 5 are published during the read
        sent: list[str] = []
        stored = [event(n) for n in range(1, 5)]
        broker: Broker

        def live_arrivals() -> None:
            for n in (3, 4, 5):
                broker.publish(event(n))

        broker = Broker(log_of(stored, live_arrivals))

        # When a client subscribes from the start, and 6 follows live
        await broker.subscribe(RUN, 1, sent.append)
        broker.publish(event(6))
        return sent

    # Then it receives 1..6, each exactly once, in order
    assert seqs_of(asyncio.run(scenario())) == [1, 2, 3, 4, 5, 6]


def test_a_subscription_starts_at_its_from_seq() -> None:
    async def scenario() -> list[str]:
        sent: list[str] = []
        broker = Broker(log_of([event(n) for n in range(1, 6)]))
        await broker.subscribe(RUN, 4, sent.append)
        broker.publish(event(3))  # a straggler below fromSeq
        broker.publish(event(6))
        return sent

    assert seqs_of(asyncio.run(scenario())) == [4, 5, 6]


def test_a_gap_in_live_events_is_filled_from_the_log() -> None:
    async def scenario() -> list[str]:
        # Given a live subscription that has sent 1..2
        sent: list[str] = []
        stored = [event(1), event(2)]
        broker = Broker(log_of(stored))
        await broker.subscribe(RUN, 1, sent.append)

        # When 5 arrives live though 3 and 4 were only stored (their delivery was lost)
        stored += [event(3), event(4), event(5)]
        broker.publish(event(5))
        for _ in range(3):
            await asyncio.sleep(0)  # let the catch-up read complete
        broker.publish(event(6))
        return sent

    # Then the broker reads the missing ones back and keeps the order
    assert seqs_of(asyncio.run(scenario())) == [1, 2, 3, 4, 5, 6]


def test_a_finished_run_drops_its_subscribers() -> None:
    async def scenario() -> tuple[list[str], int]:
        sent: list[str] = []
        broker = Broker(log_of([event(1)]))
        await broker.subscribe(RUN, 1, sent.append)
        broker.publish(event(2, "final"))
        broker.publish(event(3))  # nothing follows a terminal event; if it did, nobody gets it
        return sent, broker.subscriber_count()

    sent, remaining = asyncio.run(scenario())
    assert seqs_of(sent) == [1, 2]
    assert remaining == 0


def test_the_sink_hands_events_from_a_run_thread_to_the_loop() -> None:
    async def scenario() -> tuple[list[str], list[tuple[int, float]]]:
        # Given a subscriber and a sink on the loop
        sent: list[str] = []
        stamps: list[tuple[int, float]] = []
        broker = Broker(log_of([]))
        await broker.subscribe(RUN, 1, sent.append)
        sink = BrokerSink(broker, asyncio.get_running_loop(), lambda e, t: stamps.append((e.seq, t)))

        # When a run thread delivers three events
        def run_thread() -> None:
            for n in (1, 2, 3):
                sink.deliver(RunEvent(run_id=RUN, seq=n, type="status", ts="2024-01-01T00:00:00Z"))

        worker = threading.Thread(target=run_thread)
        worker.start()
        await asyncio.get_running_loop().run_in_executor(None, worker.join)
        await asyncio.sleep(0)
        return sent, stamps

    sent, stamps = asyncio.run(scenario())
    # Then they reach the subscriber in order, each stamped once as it was handed over
    assert seqs_of(sent) == [1, 2, 3]
    assert [seq for seq, _ in stamps] == [1, 2, 3]
    assert all(t > 0 for _, t in stamps)


def ending(seq: int, type_: EventType, **data: object) -> Published:
    stamp = "2024-01-01T00:00:00Z"
    return Published.of(RunEvent(run_id=RUN, seq=seq, type=type_, ts=stamp, data=dict(data)))


def test_a_run_that_may_be_continued_keeps_its_subscribers() -> None:
    async def scenario() -> tuple[list[str], tuple[bool, bool], bool, int]:
        # Given a subscriber of a run that stops on a budget (a continuation may follow)
        sent: list[str] = []
        broker = Broker(log_of([event(1)]))
        sub = await broker.subscribe(RUN, 1, sent.append)
        broker.publish(ending(2, "no_path", reason="budget", exhausted="searches", continuable=True))
        after_budget = (sub.resting, sub.finished)
        # When the run is continued, then finds its chain
        broker.publish(event(3, "run_continued"))
        broker.publish(ending(4, "final"))
        return sent, after_budget, sub.finished, broker.subscriber_count()

    sent, after_budget, finished, left = asyncio.run(scenario())
    # Then it rested after the budget's end, got the continuation's events, and was done at the final
    assert after_budget == (True, False)
    assert seqs_of(sent) == [1, 2, 3, 4]
    assert finished and left == 0

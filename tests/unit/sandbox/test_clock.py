from __future__ import annotations

import pytest

from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.sandbox.clock import EPOCH, LATENCIES, VirtualClock, dated_start


def test_clock_starts_at_a_fixed_epoch_and_moves_only_when_told():
    clock = VirtualClock()
    assert clock.now() == EPOCH == VirtualClock().now()
    clock.advance(1.5)
    clock.sleep(0.5)
    assert clock.now() == EPOCH + 2.0


@pytest.mark.parametrize("seconds", [-1.0, float("nan")])
def test_clock_cannot_go_backwards(seconds):
    with pytest.raises(InvalidInput):
        VirtualClock().advance(seconds)


def test_gather_overlaps_calls_and_ends_at_the_slowest():
    # Given three calls of 0.3, 0.7 and 0.5 seconds
    clock = VirtualClock()
    starts: list[float] = []

    def call(seconds: float) -> float:
        starts.append(clock.now())
        clock.advance(seconds)
        return seconds

    # When gathered
    results = clock.gather([lambda s=s: call(s) for s in (0.3, 0.7, 0.5)])
    # Then each started at the same instant, results keep their order, and time moved by the slowest
    assert starts == [EPOCH] * 3
    assert results == [0.3, 0.7, 0.5]
    assert clock.now() == pytest.approx(EPOCH + 0.7)


def test_gather_returns_exceptions_in_place():
    clock = VirtualClock()

    def fail() -> int:
        clock.advance(1.0)
        raise ValueError("boom")

    results = clock.gather([lambda: 1, fail, lambda: 3])
    assert results[0] == 1 and results[2] == 3
    assert isinstance(results[1], ValueError)
    assert clock.now() == EPOCH + 1.0


def test_nested_gathers_and_sequences_add_up():
    # Given fetch then recognise per image, for two images in parallel
    clock = VirtualClock()

    def image() -> None:
        clock.advance(LATENCIES.fetch)
        clock.advance(LATENCIES.recognize)

    clock.gather([image, lambda: clock.gather([image, image])])
    # Then the whole took one image's time
    assert clock.now() == pytest.approx(EPOCH + LATENCIES.fetch + LATENCIES.recognize)
    assert clock.gather([]) == [] and clock.now() == pytest.approx(EPOCH + 1.0)


def test_documented_latencies():
    assert (
        LATENCIES.search,
        LATENCIES.fetch,
        LATENCIES.recognize,
        LATENCIES.llm,
        LATENCIES.state_transition,
    ) == (
        0.5,
        0.3,
        0.7,
        1.5,
        0.05,
    )


def _durations(start: float) -> list[float]:
    """The simulated instants of a run's worth of calls, as offsets from `start`."""
    clock = VirtualClock(start)
    seen = []
    steps = [LATENCIES.state_transition, LATENCIES.search, 0.1234567, LATENCIES.llm] * 200
    for n, seconds in enumerate(steps):
        if n % 7 == 0:
            clock.gather([lambda: clock.advance(LATENCIES.fetch), lambda: clock.advance(LATENCIES.recognize)])
        clock.advance(seconds)
        seen.append(clock.now() - start)
    return seen


@pytest.mark.parametrize("wall", [1_764_067_200.123456, 1_800_000_000.999999, 2_100_000_000.5])
def test_a_dated_clock_measures_the_same_simulated_durations_as_one_started_at_the_epoch(wall):
    # Given a run started at a real instant (today, or any day until 2038)
    start = dated_start(wall)

    # Then its clock starts at that instant (to 1/1024 s) and every simulated duration is the
    # EPOCH clock's, bit for bit (benchmark figures do not depend on the day)
    assert wall - 1 / 1024 < start <= wall
    assert _durations(start) == _durations(EPOCH)

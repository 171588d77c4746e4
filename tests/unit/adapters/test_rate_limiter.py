"""The shared rate limiter on a fake clock: spacing, deadlines, and each client's share of a rate."""

from __future__ import annotations

import heapq
import itertools

import pytest

from visual_degrees.adapters.rate_limiter import CLIENT_BURST, InProcessSlots, Rates, SlotLimiter

START = 1_767_225_600.0


class FakeTime:
    """Wall time that moves only when someone sleeps."""

    def __init__(self, start: float = START) -> None:
        self.t = start
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


def limiter(time: FakeTime, *, search: float = 3.0, share: float = 1.0) -> SlotLimiter:
    return SlotLimiter(
        InProcessSlots(), Rates({"search": search}, client_share=share), now=time.now, sleep=time.sleep
    )


def test_calls_to_a_provider_are_spaced_one_over_its_rate():
    # Given a limiter pacing search at 4 calls a second
    time = FakeTime()
    paced = limiter(time, search=4.0)
    # When one caller makes five calls in a row
    granted_at = []
    for _ in range(5):
        assert paced.acquire("search", "c1", deadline=START + 60)
        granted_at.append(time.now() - START)
    # Then the first goes at once and each next one a quarter of a second later
    assert granted_at == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


def test_one_clients_calls_go_in_a_burst_and_then_at_its_share_of_the_rate():
    # Given search paced at 4 calls a second, a client allowed a quarter of it
    time = FakeTime()
    paced = limiter(time, search=4.0, share=0.25)
    # When that client makes eight calls in a row
    mine = []
    for _ in range(8):
        assert paced.acquire("search", "c1", deadline=START + 60)
        mine.append(time.now() - START)
    # Then its first CLIENT_BURST go at the provider's pace, the rest one a second (its share)
    assert CLIENT_BURST == 5
    assert mine == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 2.0, 3.0])
    # And another client's call goes at the provider's next slot
    assert paced.acquire("search", "c2", deadline=START + 60)
    assert time.now() - START == pytest.approx(3.25)


def test_a_burst_lets_calls_go_before_their_slot_up_to_what_it_allows():
    slots = InProcessSlots()
    taken = [slots.take("q", 1.0, START, START + 60, ahead=2.0) for _ in range(5)]
    assert taken == pytest.approx([START, START, START, START + 1, START + 2])


def test_an_idle_queue_grants_at_once_and_builds_no_credit():
    # Given a queue last used long ago
    slots = InProcessSlots()
    assert slots.take("search", 0.5, START, START + 10) == START
    # When two calls come at the same moment much later
    later = START + 100
    first, second = slots.take("search", 0.5, later, later + 10), slots.take("search", 0.5, later, later + 10)
    # Then the first goes at once and the second still waits its interval (no burst saved up)
    assert (first, second) == (later, later + 0.5)


def test_a_slot_after_the_deadline_is_refused_and_nothing_is_taken():
    # Given a queue whose next free slot is 2 s away
    slots = InProcessSlots()
    for _ in range(4):
        slots.take("search", 0.5, START, START + 60)
    # When a caller who may wait only 1 s asks, and then one who may wait 3 s
    refused = slots.take("search", 0.5, START, START + 1)
    granted = slots.take("search", 0.5, START, START + 3)
    # Then the first is refused, and the refusal took no slot: the second gets the 2 s one
    assert refused is None
    assert granted == START + 2.0


def test_acquire_returns_false_without_waiting_when_no_slot_comes_in_time():
    time = FakeTime()
    paced = limiter(time, search=1.0)
    assert paced.acquire("search", "c1", deadline=START + 10)
    # The next slot is a second away; this caller may wait only half a second.
    assert paced.acquire("search", "c1", deadline=START + 0.5) is False
    assert time.slept == []


def test_a_provider_without_a_rate_is_not_paced():
    time = FakeTime()
    paced = limiter(time, search=1.0)
    assert all(paced.acquire("llm", "c1", deadline=START) for _ in range(10))
    assert time.now() == START


@pytest.mark.parametrize(
    ("rates", "problem"),
    [
        ({"serach": 1.0}, "no provider"),
        ({"search": 0.0}, "> 0"),
    ],
)
def test_rates_are_checked(rates, problem):
    with pytest.raises(ValueError, match=problem):
        Rates(rates)


def test_a_client_share_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="client_share"):
        Rates({"search": 1.0}, client_share=0.0)


def simulate(paced: SlotLimiter, calls: list[tuple[float, str]], deadline: float) -> dict[int, float]:
    """Drive `paced`'s two stages as `acquire` does, for many callers at once on simulated time:
    each call (arrival, client) queues for its client's turn, then for the provider's slot.
    Returns when each call was granted (by its index), relative to START."""
    events: list[tuple[float, int, int, str]] = []  # (time, order, call index, stage)
    order = itertools.count()
    for index, (arrival, _client) in enumerate(calls):
        heapq.heappush(events, (START + arrival, next(order), index, "turn"))
    granted: dict[int, float] = {}
    while events:
        at, _, index, stage = heapq.heappop(events)
        client = calls[index][1]
        if stage == "turn":
            turn = paced.turn("search", client, at, deadline)
            assert turn is not None
            heapq.heappush(events, (turn, next(order), index, "slot"))
        else:
            slot = paced.slot("search", at, deadline)
            assert slot is not None
            granted[index] = slot - START
    return granted


def test_a_light_client_is_not_starved_by_a_heavy_one():
    # Given a provider paced at 3 calls a second, each client allowed a quarter of it, and a heavy
    # client with 60 calls waiting (20 s of the whole rate)
    paced = limiter(FakeTime(), search=3.0, share=0.25)
    heavy = [(0.0, "heavy")] * 60
    # When a light client asks for one call at 1 s and another at 10 s
    calls = [*heavy, (1.0, "light"), (10.0, "light")]
    granted = simulate(paced, calls, deadline=START + 3600)
    # Then the first light call waits at most behind the heavy client's opening burst, and once
    # the heavy client goes at its share, a light call waits at most one interval of the rate
    assert granted[60] - 1.0 <= (CLIENT_BURST + 1) / 3 + 1e-9
    assert granted[61] - 10.0 <= 1 / 3 + 1e-9
    # And after its burst the heavy client's calls go at its share of the rate, no faster
    heavy_times = sorted(granted[i] for i in range(60))
    assert heavy_times[-1] == pytest.approx((59 - (CLIENT_BURST - 1)) / 0.75, abs=1 / 3)


def test_a_client_alone_gets_its_share_of_the_rate_after_its_burst():
    paced = limiter(FakeTime(), search=3.0, share=0.25)
    granted = sorted(simulate(paced, [(0.0, "heavy")] * 12, deadline=START + 3600).values())
    # Its burst goes at the provider's pace, then its calls are spaced by its share (0.75 a second)
    assert granted[:CLIENT_BURST] == pytest.approx([i / 3 for i in range(CLIENT_BURST)])
    gaps = [later - earlier for earlier, later in itertools.pairwise(granted[CLIENT_BURST + 1 :])]
    assert gaps == pytest.approx([1 / 0.75] * len(gaps))


def test_at_a_full_share_one_client_may_use_the_whole_rate_and_a_newcomer_waits_briefly():
    # Given clients allowed the whole rate, and one of them with 60 calls waiting
    paced = limiter(FakeTime(), search=3.0, share=1.0)
    # When another client asks for one call at 1 s
    granted = simulate(paced, [*[(0.0, "heavy")] * 60, (1.0, "light")], deadline=START + 3600)
    # Then the heavy client's calls go at the whole rate, and the newcomer's after at most its
    # burst and one more: one client's many calls queue as one
    assert sorted(granted[i] for i in range(60))[:4] == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert granted[60] - 1.0 <= (CLIENT_BURST + 1) / 3 + 1e-9


def test_many_light_clients_share_the_rate_first_come_first_served():
    # Given 20 light clients asking at once beside a heavy one with 40 calls waiting
    paced = limiter(FakeTime(), search=3.0, share=0.25)
    calls = [*[(0.0, "heavy")] * 40, *[(0.5, f"light{i}") for i in range(20)]]
    granted = simulate(paced, calls, deadline=START + 3600)
    light = sorted(granted[40 + i] - 0.5 for i in range(20))
    # Then all 20 go within 20 / (3 - 0.75) s: the rest of the rate is theirs
    assert light[-1] <= 20 / (3.0 - 0.75) + 1 / 3

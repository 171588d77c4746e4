import threading

from tests.support.fakes import ListSink
from visual_degrees.services.event_log import EventLog
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def test_seq_starts_at_one_and_has_no_gaps():
    log = EventLog(SqliteMemory(":memory:"))
    events = [log.append("r1", f"k{i}", "status", {"i": i}, at=0.0) for i in range(5)]
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert [e.data["i"] for e in log.read("r1")] == [0, 1, 2, 3, 4]
    assert [e.seq for e in log.read("r1", from_seq=4)] == [4, 5]
    assert log.last_seq("r1") == 5


def test_a_repeated_logical_event_keeps_its_seq_and_is_delivered_once():
    sink = ListSink()
    log = EventLog(SqliteMemory(":memory:"), sink)
    first = log.append("r1", "final", "final", {"path": ["A", "B"]}, at=1.0)
    again = log.append("r1", "final", "final", {"path": ["something", "else"]}, at=2.0)
    assert again == first
    assert len(sink.events) == 1 and log.last_seq("r1") == 1


def test_runs_have_separate_sequences():
    log = EventLog(SqliteMemory(":memory:"))
    log.append("r1", "a", "status", {}, at=0)
    assert log.append("r2", "a", "status", {}, at=0).seq == 1


def test_concurrent_appenders_never_share_or_skip_a_seq(tmp_path):
    # Given one file and many threads appending (some with the same logical key)
    memory = SqliteMemory(tmp_path / "m.sqlite3")
    log = EventLog(memory)
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        try:
            for i in range(25):
                log.append("r", f"w{w}-{i}", "status", {"w": w, "i": i}, at=0)
                log.append("r", f"shared-{i}", "status", {"i": i}, at=0)
        except BaseException as exc:  # pragma: no cover - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Then every logical event has exactly one seq, and the seqs are 1..n
    assert errors == []
    events = log.read("r")
    assert [e.seq for e in events] == list(range(1, 6 * 25 + 25 + 1))
    keys = [(e.data.get("w"), e.data["i"]) for e in events]
    assert len(keys) == len(set(keys))

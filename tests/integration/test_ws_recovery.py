"""Who ends the runs of a server that died (local/server/recovery.py): a server gone for good has its
unfinished runs ended with `server_stopped`, once; a live one sharing the state directory keeps
them; a run that ended on its own keeps its ending. (The whole story with a real process and
SIGKILL: test_serve_restart.py.)"""

from __future__ import annotations

from pathlib import Path

from tests.support.ws_client import WsClient
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees.services.endings import end_run
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_access import RunAccess
from visual_degrees.services.run_memory import RunControl
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.executions import ExecutionStore
from visual_degrees_tools.local.server.recovery import LEASE_SECONDS, RUNS_PK, SERVERS_PK, InFlight, ServerId
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR


class Clock:
    def __init__(self) -> None:
        self.t = 1_800_000_000.0

    def __call__(self) -> float:
        return self.t


def taken(memory: SqliteMemory, server: InFlight, run_id: str) -> None:
    """A run `server` accepted and started: its access record, meta and registry entry."""
    RunAccess(memory).register(run_id, "client", 1800, personA=A, personB=B, ttlSeconds=1800)
    RunControl(memory, run_id, 1800).create({"runId": run_id, "status": "running"})
    server.add(run_id, 1800)


def test_a_dead_servers_runs_are_ended_once_and_recorded_for_trace() -> None:
    clock = Clock()
    memory = SqliteMemory(":memory:", now=clock)
    # Given a server on this machine whose process is gone, with two runs in flight
    dead = InFlight(memory, ServerId(pid=4_000_001), clock=clock, exists=lambda pid: False)
    dead.start()
    taken(memory, dead, "r1")
    taken(memory, dead, "r2")
    # When its successor starts
    successor = InFlight(memory, ServerId(pid=4_000_002), clock=clock, exists=lambda pid: pid != 4_000_001)
    successor.start()
    ended = successor.recover()

    # Then both runs end with one error saying the server stopped, in their meta too
    assert sorted(ended) == ["r1", "r2"]
    for run_id in ended:
        (event,) = [e for e in EventLog(memory).read(run_id) if e.type == "error"]
        assert event.data["code"] == "server_stopped" and "usage" in event.data
        assert RunControl(memory, run_id, 1800).meta()["status"] == "failed"
        summary, history = ExecutionStore(memory).history(run_id)
        assert (summary["status"], summary["outcome"], summary["personA"]) == ("FAILED", "error", A)
        assert history[-1]["executionFailedEventDetails"]["error"] == "ServerStopped"
    # And nothing is left to end: a second look ends nothing and adds no event
    assert memory.query(RUNS_PK) == []
    assert successor.recover() == []
    assert len(EventLog(memory).read("r1")) == 1


def test_a_live_server_sharing_the_directory_keeps_its_runs_until_its_lease_lapses() -> None:
    clock = Clock()
    memory = SqliteMemory(":memory:", now=clock)
    # Given a server on another machine, and one on this machine whose process runs, each with a run
    elsewhere = InFlight(memory, ServerId(pid=7, host="other-host"), clock=clock)
    here = InFlight(memory, ServerId(pid=8), clock=clock, exists=lambda pid: True)
    for server, run_id in ((elsewhere, "far"), (here, "near")):
        server.start()
        taken(memory, server, run_id)
    me = InFlight(memory, ServerId(pid=9), clock=clock, exists=lambda pid: True)
    me.start()

    # Then a new server leaves their runs alone while their leases are renewed
    assert me.recover() == []
    clock.t += LEASE_SECONDS - 1
    elsewhere.renew()
    assert me.recover() == []
    # But once a lease lapses (its server stopped renewing), that server's runs are ended
    clock.t += 2
    assert me.recover() == ["near"]
    clock.t += LEASE_SECONDS
    assert me.recover() == ["far"]


def test_a_run_that_ended_on_its_own_keeps_its_ending() -> None:
    clock = Clock()
    memory = SqliteMemory(":memory:", now=clock)
    dead = InFlight(memory, ServerId(pid=11), clock=clock, exists=lambda pid: False)
    dead.start()
    taken(memory, dead, "r1")
    # Given a run whose final step ended it just before its server died
    end_run(memory, None, "r1", 1800, "final", {"path": [A, B]}, at=clock())
    # When a successor recovers (the dead server's pid is gone, whatever runs on this machine)
    InFlight(memory, ServerId(pid=12), clock=clock, exists=lambda pid: False).recover()
    # Then the run's ending is still its own, and the registry forgets it
    assert [e.type for e in EventLog(memory).read("r1")] == ["final"]
    assert memory.query(RUNS_PK) == []


def test_a_server_registers_its_runs_while_they_go_and_leaves_nothing_behind(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv, WsClient(srv.ws_url) as client:
        # Given a server whose lease is in the state directory
        (lease,) = srv.memory.query(SERVERS_PK)
        assert lease.data["pid"] > 0
        # When a run is accepted, it is registered while it goes
        run_id = client.start(A, B)["runId"]
        gate.wait_until_held()
        assert [item.sk for item in srv.memory.query(RUNS_PK)] == [run_id]
        # And forgotten once it ends
        gate.open()
        client.events_until_terminal(run_id)
    # And a server that stopped leaves neither a lease nor a run behind
    reopened = SqliteMemory(tmp_path / "memory.sqlite3")
    assert reopened.query(RUNS_PK) == [] and reopened.query(SERVERS_PK) == []
    reopened.close()

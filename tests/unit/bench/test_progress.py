"""`bench` progress on stderr: a bar with runs done, solved so far and the time left."""

from __future__ import annotations

import io
from itertools import count
from types import SimpleNamespace

from visual_degrees_tools.bench.report import progress_bar, progress_printer


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def record(solved: bool) -> SimpleNamespace:
    return SimpleNamespace(solved=solved)


def test_the_bar_fills_with_the_runs_done() -> None:
    assert progress_bar(0, 8, width=8) == "░" * 8
    assert progress_bar(3, 8, width=8) == "███░░░░░"
    assert progress_bar(8, 8, width=8) == "█" * 8


def test_a_terminal_sees_one_bar_redrawn_with_solved_runs_and_time_left() -> None:
    out = Terminal()
    ticks = count(0, 10)  # each call: ten seconds later
    show = progress_printer("default", stream=out, clock=lambda: float(next(ticks)))
    show(1, 4, record(True))
    show(2, 4, record(False))
    show(4, 4, record(True))
    frames = out.getvalue().split("\r\x1b[K")[1:]
    assert frames[0] == f"[default] {progress_bar(1, 4)} 1/4 runs · 1 solved · ~0:30 left"
    assert frames[1] == f"[default] {progress_bar(2, 4)} 2/4 runs · 1 solved · ~0:20 left"
    assert frames[2] == f"[default] {'█' * 24} 4/4 runs · 2 solved · 0:30 in all\n"


def test_a_log_gets_a_line_every_five_percent() -> None:
    out = io.StringIO()
    show = progress_printer("seed", stream=out, clock=lambda: 0.0)
    for done in range(1, 101):
        show(done, 100, record(False))
    lines = out.getvalue().splitlines()
    assert len(lines) == 20 and lines[-1].startswith(f"[seed] {'█' * 24} 100/100 runs · 0 solved")

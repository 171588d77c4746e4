"""How many degrees a chain has, and what the run can say about fewer: the `degrees` of a `final`.

A run claims only what it proved. `ruledOut` lists each smaller number of degrees the run's
evidence excludes, with that evidence (one degree: the pair's own search was read and no photo of
both was found in it); `notRuledOut` says what was tried for the others, never that they are
impossible. `shortest` is true only when every smaller number is ruled out.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from visual_degrees.domain.models import Model
from visual_degrees.domain.wording import plural

# Why the search for a shorter chain stopped: a shorter chain was proven, nothing cheap was left
# to try, it made as many checks as one step may, its extra spend (or a budget) would have been
# passed, or it was not run (off, or the chain had one degree).
Stopped = Literal["shorter_found", "exhausted", "attempts", "allowance", "budget", "not_run"]


class DegreeCheck(Model):
    """What is known about chains of `degrees` (or fewer, down to the next check)."""

    degrees: int = Field(ge=1)
    up_to: int | None = None  # a range of degrees, `degrees`..`up_to`
    evidence: str

    def line(self, verdict: str) -> str:
        span = plural(self.degrees, "degree")
        if self.up_to is not None:
            span = f"{self.degrees}–{self.up_to} degrees"
        return f"{span} {verdict}: {self.evidence}"


class Shortening(Model):
    """What the search for a shorter chain did (kept in the run's meta until the answer is written)."""

    found_hops: int = Field(ge=1)  # the first proven chain's degrees
    tried: list[list[str]] = Field(default_factory=list)  # pairs it tried to prove (display names)
    proven: int = 0  # of those, how many a photo proved
    asked: bool = False  # the planner was asked for a shorter chain
    stopped: Stopped = "not_run"
    spent_usd: float = 0.0
    allowance_usd: float = 0.0


class Degrees(Model):
    degrees: int = Field(ge=1)
    shortest: bool
    shortened_from: int | None = None
    ruled_out: list[DegreeCheck] = Field(default_factory=list)
    not_ruled_out: list[DegreeCheck] = Field(default_factory=list)
    spent_usd: float = 0.0  # what looking for a shorter chain cost
    allowance_usd: float = 0.0  # what it was allowed to cost

    def lines(self) -> list[str]:
        """The answer's degrees in words, first line the count (what the CLI and the page show)."""
        head = f"Degrees: {self.degrees}"
        if self.shortened_from is not None:
            head += f" (the first chain proven had {self.shortened_from})"
        if self.shortest:
            head += " — the fewest: every shorter chain is ruled out"
        elif self.degrees > 1:
            head += " — fewer not ruled out"
        lines = [head]
        lines += [check.line("ruled out") for check in self.ruled_out]
        lines += [check.line("not ruled out") for check in self.not_ruled_out]
        return lines

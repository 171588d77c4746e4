"""Which endings a run can be continued from, and why not the others (issue 13).

A run that stopped because a budget ran out was still going: more budget lets it pick up where it
stopped. Every other ending says why more budget alone would not help, and what would:

- a path: there is nothing left to find;
- the hop limit (the seed strategy): every chain still possible is too long; budget cannot
  shorten it;
- nobody left to try (an end no photo shows with anyone, or no lead left): more budget would only
  search blindly, but a hint (`via`, someone the user believes connects them) gives the run
  somewhere to look, so a continuation naming one is accepted;
- a cancel, a failure: the run was stopped, or broke; start a new one (it reuses every photo
  already recognised).

`judge` reads a terminal event (its type and data) and is the one rule: the final step writes its
verdict into the `no_path` it emits (`continuable`, `why`), and the continueRun use case applies
the same rule to the run's latest ending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from visual_degrees.domain.wording import budget_words, plural


@dataclass(frozen=True)
class Verdict:
    continuable: bool
    why: str
    with_hint: bool = False  # not continuable as it is, but a continuation naming `via` is

    def payload(self) -> dict[str, Any]:
        """The fields a `no_path` carries about it."""
        data: dict[str, Any] = {"continuable": self.continuable, "why": self.why}
        if self.with_hint:
            data["continuableWithHint"] = True
        return data


START_AGAIN = "start it again: a new run reuses every photo this one recognised."


def judge(event_type: str, data: dict[str, Any]) -> Verdict:
    """Whether a run that ended with this terminal event can be continued, and why (not)."""
    if event_type == "final":
        return Verdict(False, "The run already found a chain.")
    if event_type == "cancelled":
        return Verdict(False, f"The run was cancelled, so it is not continued; {START_AGAIN}")
    if event_type == "error":
        if data.get("continuable") is True:  # a continuation that could not be started
            return Verdict(True, str(data.get("why") or "The continuation could not be started."))
        return Verdict(False, f"The run failed, so it is not continued; {START_AGAIN}")
    if event_type != "no_path":
        return Verdict(False, "The run has not ended.")
    return no_path_verdict(
        str(data.get("reason") or ""),
        exhausted=data.get("exhausted"),
        unseen=data.get("unseenEnd"),
        max_hops=data.get("maxHops"),
    )


def no_path_verdict(
    reason: str, *, exhausted: object = None, unseen: object = None, max_hops: object = None
) -> Verdict:
    if reason == "budget":
        budget = budget_words(exhausted or "searches")
        return Verdict(
            True,
            f"The {budget} budget ran out while the search was still going; a continuation picks "
            "up where it stopped, with more budget, and searches nothing twice.",
        )
    if reason == "hop_limit":
        return Verdict(
            False,
            f"Every chain still possible is longer than {_hops(max_hops)}; more budget cannot "
            "shorten it. Start a new run with a higher max hops.",
        )
    if unseen:
        return Verdict(
            False,
            f"No photo could be found showing {unseen} with anyone, so more budget alone would "
            f"search blindly. Name someone who appeared with {unseen} (via) to continue.",
            with_hint=True,
        )
    return Verdict(
        False,
        "Nobody new was left to try, so more budget alone would find nothing new. Name someone "
        "you believe connects them (via) to continue.",
        with_hint=True,
    )


def _hops(max_hops: object) -> str:
    return plural(max_hops, "hop") if isinstance(max_hops, int | float) else f"{max_hops} hops"


def may_go_on(event_type: str, data: dict[str, Any]) -> bool:
    """Whether a run that just emitted this event may yet emit more: it is no ending, or an ending
    a continuation (with or without a hint) may follow. A subscription ends only when not."""
    if event_type not in ("final", "no_path", "cancelled", "error"):
        return True
    verdict = judge(event_type, data)
    return verdict.continuable or verdict.with_hint

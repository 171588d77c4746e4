"""The operator's ceilings: the most a client may ask of one run, whatever the run options allow.

`RunOptions` bounds what can be run at all (up to 10,000 searches, an hour); a deployment or a local
server takes requests from clients, and its operator decides how much one request may spend. A
`startRun` asking for more than a ceiling is refused (`above_ceiling`, naming the option, what was
asked and the ceiling), never clipped: a client that asked for 500 searches must not believe it got
them. The deployment's own run defaults must fit under its ceilings (checked where they are set).
The CLI's `run` has no ceilings: whoever types it is the operator.

Defaults: five times the default budgets, and the options' own maxima for hops and images.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pydantic import Field

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.models import START_MINIMUM, Budgets, Model, RunOptions

ABOVE_CEILING = "above_ceiling"
_DEFAULT = Budgets()
HEADROOM = 5  # default ceilings: this many times the default budgets


class AboveCeiling(InvalidInput):
    """`details` (a continuation's refusal): the ceilings and what the run spent, so a client can
    offer what would be accepted."""

    code = ABOVE_CEILING

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        if details:
            self.details = MappingProxyType(details)


def _least(field: str) -> float:
    return START_MINIMUM[field][0]


class BudgetCeilings(Model):
    """At least what a run needs to start (START_MINIMUM): below, no request could be served."""

    searches: int = Field(default=HEADROOM * _DEFAULT.searches, ge=_least("searches"), le=10_000)
    recognitions: int = Field(default=HEADROOM * _DEFAULT.recognitions, ge=_least("recognitions"), le=100_000)
    llm_calls: int = Field(default=HEADROOM * _DEFAULT.llm_calls, ge=0, le=1_000)
    runtime_seconds: float = Field(
        default=HEADROOM * _DEFAULT.runtime_seconds, ge=_least("runtimeSeconds"), le=3_600
    )


class RunCeilings(Model):
    """Same shape and names as RunOptions, so a refusal names the option as the client wrote it."""

    max_hops: int = Field(default=10, ge=1, le=10)
    images_per_search: int = Field(default=20, ge=1, le=20)
    budgets: BudgetCeilings = Field(default_factory=BudgetCeilings)

    def limits(self) -> dict[str, float]:
        """`options.<field>` (as clients spell it) -> its ceiling."""
        budgets = self.budgets.dump()
        return {
            "options.maxHops": self.max_hops,
            "options.imagesPerSearch": self.images_per_search,
            **{f"options.budgets.{name}": value for name, value in budgets.items()},
        }

    def excess(self, options: RunOptions) -> list[str]:
        """What `options` ask beyond these ceilings, one phrase per option (empty: nothing)."""
        asked = {
            "options.maxHops": options.max_hops,
            "options.imagesPerSearch": options.images_per_search,
            **{f"options.budgets.{k}": v for k, v in options.budgets.dump().items()},
        }
        return [
            f"{name}: {_number(asked[name])} is above the operator's ceiling of {_number(ceiling)}"
            for name, ceiling in self.limits().items()
            if asked[name] > ceiling
        ]

    def lowered(self, defaults: RunOptions) -> RunOptions:
        """`defaults` with each value above its ceiling brought down to it: what a server whose
        operator set only ceilings starts runs from (a client's own request is refused instead)."""
        budgets = defaults.budgets
        return defaults.model_copy(
            update={
                "max_hops": min(defaults.max_hops, self.max_hops),
                "images_per_search": min(defaults.images_per_search, self.images_per_search),
                "budgets": budgets.model_copy(
                    update={
                        "searches": min(budgets.searches, self.budgets.searches),
                        "recognitions": min(budgets.recognitions, self.budgets.recognitions),
                        "llm_calls": min(budgets.llm_calls, self.budgets.llm_calls),
                        "runtime_seconds": min(budgets.runtime_seconds, self.budgets.runtime_seconds),
                    }
                ),
            }
        )

    def check(self, options: RunOptions) -> None:
        """Raise AboveCeiling naming every option over its ceiling."""
        excess = self.excess(options)
        if excess:
            raise AboveCeiling("; ".join(excess))

    def check_continuation(self, asked: Budgets, spent: dict[str, float]) -> None:
        """A continuation's budgets count with what the run already spent: the ceilings bound a
        run's total, however many times it is continued (`spent`: by Budgets' wire names, the
        runtime as the seconds the run's segments took). Raise AboveCeiling naming each budget
        (as continueRun's `budgets.<name>`) whose total would pass its ceiling, with the ceilings
        and the spend in its details (the refusal carries them)."""
        more, ceilings = asked.dump(), self.budgets.dump()
        before = {name: spent.get(name, 0) for name in ceilings}
        excess = [
            f"budgets.{name}: {_number(more[name])} more on top of the {_number(before[name])} "
            f"already spent is {_number(before[name] + more[name])}, above the operator's "
            f"ceiling of {_number(ceiling)}"
            for name, ceiling in ceilings.items()
            if before[name] + more[name] > ceiling
        ]
        if excess:
            raise AboveCeiling("; ".join(excess), ceilings=self.dump(), spent=before)


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"

"""Fault injection: provider failures on purpose, so retry, skip and fallback paths get exercised.

Each rate is the probability that one call fails that way. A decision is a pure function of the
seed, the kind of fault, the call's identity (query, URL, image hash, planner context) and, for
transient faults, the attempt number: a retried call draws again and may succeed, while a dead link
or a WebP image stays what it is however often it is fetched.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.sandbox.hashing import uniform


class FaultConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    search_429: float = Field(default=0.0, ge=0.0, le=1.0, description="search throttled (HTTP 429)")
    search_5xx: float = Field(default=0.0, ge=0.0, le=1.0, description="search server error (HTTP 5xx)")
    fetch_timeout: float = Field(default=0.0, ge=0.0, le=1.0, description="image download times out")
    dead_link: float = Field(default=0.0, ge=0.0, le=1.0, description="image URL answers 404, always")
    webp: float = Field(default=0.0, ge=0.0, le=1.0, description="image served as WebP, always")
    recognize_throttle: float = Field(default=0.0, ge=0.0, le=1.0, description="recogniser throttled")
    planner_error: float = Field(default=0.0, ge=0.0, le=1.0, description="LLM call fails (429/5xx)")

    @classmethod
    def parse(cls, text: str) -> FaultConfig:
        """`"search_5xx=0.1,dead_link=0.05"` -> FaultConfig; InvalidInput names any bad part."""
        if not isinstance(text, str):
            raise InvalidInput("faults must be a string like 'search_5xx=0.1,dead_link=0.05'")
        known = ", ".join(cls.model_fields)
        values: dict[str, float] = {}
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            key, sep, raw = part.partition("=")
            key = key.strip()
            if not sep:
                raise InvalidInput(f"fault {part!r} needs a rate, e.g. {key or 'dead_link'}=0.05")
            if key not in cls.model_fields:
                raise InvalidInput(f"unknown fault {key!r}; known faults: {known}")
            if key in values:
                raise InvalidInput(f"fault {key!r} is given twice")
            try:
                rate = float(raw)
            except ValueError:
                raise InvalidInput(f"fault {key}: {raw.strip()!r} is not a number") from None
            if not 0.0 <= rate <= 1.0:  # also rejects nan
                raise InvalidInput(f"fault {key}: {raw.strip()} is not a rate between 0 and 1")
            values[key] = rate
        try:
            return cls(**values)
        except ValidationError as exc:  # unreachable with the checks above; kept as a backstop
            raise InvalidInput(f"faults: {exc.errors()[0]['msg']}") from None

    def describe(self) -> str:
        """The canonical CLI form (only the non-zero rates)."""
        return ",".join(f"{k}={v:g}" for k, v in self.model_dump().items() if v)


NO_FAULTS = FaultConfig()


class FaultInjector:
    """Decides, per call, whether a fault strikes; counts attempts and what it injected."""

    def __init__(self, config: FaultConfig = NO_FAULTS, seed: int = 0) -> None:
        self.config = config
        self.seed = seed
        self.attempts: Counter[tuple[str, str]] = Counter()
        self.injected: Counter[str] = Counter()

    def strikes(self, fault: str, identity: str) -> bool:
        """A transient fault: each call of the same identity is a new attempt with a new draw."""
        rate = getattr(self.config, fault)
        attempt = self.attempts[fault, identity]
        self.attempts[fault, identity] = attempt + 1
        if rate <= 0.0:
            return False
        hit = uniform("fault", self.seed, fault, identity, attempt) < rate
        if hit:
            self.injected[fault] += 1
        return hit

    def is_permanent(self, fault: str, identity: str) -> bool:
        """A property of the thing itself (a dead link, a WebP image): the same answer every time."""
        rate = getattr(self.config, fault)
        if rate <= 0.0:
            return False
        hit = uniform("fault", self.seed, fault, identity) < rate
        if hit:
            self.injected[fault] += 1
        return hit

"""The recogniser's noise model: what a face-recognition service makes of one face in one photo.

For every (seed, photo, person) the model decides, deterministically: was the face detected, was it
recognised, as whom (rarely a lookalike: someone else), and with what MatchConfidence. The figures
and where they come from are in docs/sandbox.md; those marked as assumptions there are ours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import IntEnum

from visual_degrees_tools.sandbox.captions import Kind
from visual_degrees_tools.sandbox.hashing import mix

_INV16 = 1.0 / 65536
_INV32 = 1.0 / 4294967296


class Outcome(IntEnum):
    MISSED = 0  # not detected, or detected but not recognised (Rekognition's UnrecognizedFaces)
    RECOGNISED = 1  # named as themselves
    LOOKALIKE = 2  # named as somebody else


@dataclass(frozen=True)
class NoiseModel:
    # P(face detected) for a portrait, a group of 2-4, a crowd of 5+ (smaller, turned, occluded faces).
    detect: tuple[float, float, float] = (0.99, 0.97, 0.88)
    # P(recognised | detected) rises with fame: a face seen in many photos is better known.
    recognise_minor: float = 0.90  # someone in one event
    recognise_famous: float = 0.98  # someone in `famous_events` events or more
    famous_events: int = 20
    # MatchConfidence bands for a correct match: [95, 100) "high", [80, 95) "mid", else [50, 80).
    high_share: tuple[float, float, float] = (0.86, 0.84, 0.62)
    mid_share: tuple[float, float, float] = (0.09, 0.10, 0.22)
    low_floor: float = 50.0
    # P(a detected face is matched to someone else), and how often such a match scores >= 80.
    lookalike: tuple[float, float, float] = (0.003, 0.01, 0.02)
    lookalike_above_80: float = 0.2
    lookalike_high_ceiling: float = 92.0
    # Share of lookalikes drawn from the same event (a co-star not in the photo): the hard case.
    lookalike_same_event: float = 0.5
    _rates: dict[int, float] = field(default_factory=dict, repr=False, compare=False, hash=False)

    def recognise_rate(self, fame: int) -> float:
        cached = self._rates.get(fame)
        if cached is not None:
            return cached
        scale = min(1.0, math.log(max(1, fame)) / math.log(self.famous_events))
        rate = self._rates[fame] = (
            self.recognise_minor + (self.recognise_famous - self.recognise_minor) * scale
        )
        return rate

    def judge(self, h: int, kind: Kind, fame: int) -> tuple[Outcome, float, float]:
        """(outcome, confidence, u) for the face hashed as `h`; `u` picks the lookalike, if any.

        One 64-bit hash gives four 16-bit draws (detect, lookalike, band, recognise), a second one
        the confidence and the lookalike pick; 1/65536 is fine enough for every rate used here.
        """
        if (h & 0xFFFF) * _INV16 >= self.detect[kind]:
            return Outcome.MISSED, 0.0, 0.0
        h2 = mix(h)
        u_conf = (h2 & 0xFFFFFFFF) * _INV32
        u_band = ((h >> 32) & 0xFFFF) * _INV16
        if ((h >> 16) & 0xFFFF) * _INV16 < self.lookalike[kind]:
            if u_band < self.lookalike_above_80:
                confidence = 80.0 + (self.lookalike_high_ceiling - 80.0) * u_conf
            else:
                confidence = self.low_floor + (80.0 - self.low_floor) * u_conf
            return Outcome.LOOKALIKE, round(confidence, 2), (h2 >> 32) * _INV32
        if (h >> 48) * _INV16 >= self.recognise_rate(fame):
            return Outcome.MISSED, 0.0, 0.0
        high = self.high_share[kind]
        if u_band < high:
            confidence = min(99.99, 100.0 - 5.0 * u_conf**3)  # mostly 99.x, as clear faces score
        elif u_band < high + self.mid_share[kind]:
            confidence = 80.0 + 15.0 * u_conf
        else:
            confidence = self.low_floor + (80.0 - self.low_floor) * u_conf
        return Outcome.RECOGNISED, round(confidence, 2), 0.0

    def provable_rate(self, kind: Kind, fame: int) -> float:
        """P(a face is recognised as its own person at >= 80): the expected share of proof."""
        detected = self.detect[kind] * (1 - self.lookalike[kind])
        return detected * self.recognise_rate(fame) * (self.high_share[kind] + self.mid_share[kind])


DEFAULT_NOISE = NoiseModel()

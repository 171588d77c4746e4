"""List prices of the paid calls, so a run can say what it cost.

Defaults: Brave Search API image queries at $5 per 1,000 requests; Rekognition RecognizeCelebrities
at $0.001 per image (first pricing tier); the default planner model (settings.py: a current Gemini
Flash) at $0.75 per million input and $3.75 per million output tokens, as listed in late 2026 (the
2.5 Flash price was $0.30 / $2.50). Override per deployment where contracts or models differ.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class CostTable(BaseModel):
    search_usd: float = Field(default=0.005, ge=0)
    recognition_usd: float = Field(default=0.001, ge=0)
    llm_input_usd_per_million: float = Field(default=0.75, ge=0)
    llm_output_usd_per_million: float = Field(default=3.75, ge=0)

    def llm_usd(self, tokens_in: int, tokens_out: int) -> float:
        return (
            tokens_in * self.llm_input_usd_per_million + tokens_out * self.llm_output_usd_per_million
        ) / 1_000_000


DEFAULT_COSTS = CostTable()

"""Fixed-width tables for the terminal, as `trace`, `hunches` and `doctor` print them."""

from __future__ import annotations

from collections.abc import Sequence


def aligned(rows: Sequence[Sequence[str]], *, numeric: int = 0) -> list[str]:
    """`rows` (a header first) as lines of columns two spaces apart: every column but the last
    padded to its widest cell, the first `numeric` of them to the right as numbers read; the last
    left as it is, since it is the one that runs long (a run id, a detail)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]

    def padded(i: int, cell: str) -> str:
        return cell.rjust(widths[i]) if i < numeric else cell.ljust(widths[i])

    return ["  ".join([*(padded(i, cell) for i, cell in enumerate(row[:-1])), row[-1]]) for row in rows]

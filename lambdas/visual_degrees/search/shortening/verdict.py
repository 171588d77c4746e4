"""What the answer may say about its degrees: how many, which fewer are ruled out and by what, and
what was tried for the rest (domain/degrees.py). Read-only: written into `final` by S6.

One degree is ruled out when the run read the pair's own search ("A B") and nothing the run holds
could still prove a photo of both (every photo its titles name together was recognised, or none
was). Two or more degrees are never ruled out by a run: that would need every person seen with A
checked against every person seen with B. So `shortest` is claimed only for one degree, or for two
once one is ruled out.
"""

from __future__ import annotations

from visual_degrees.domain.degrees import DegreeCheck, Degrees, Shortening
from visual_degrees.domain.wording import plural
from visual_degrees.search.port import Shortener
from visual_degrees.search.scope import SearchScope

_LISTED = 3  # pairs named in words; the rest are counted


def degrees(scope: SearchScope, strategy: object, keys: list[str]) -> Degrees:
    """The degrees of the chain `keys` (A..B) the answer gives, with what rules fewer out."""
    hops = len(keys) - 1
    meta = scope.control.meta()
    record = meta.shortening if meta is not None else None
    ruled_out: list[DegreeCheck] = []
    if hops > 1 and isinstance(strategy, Shortener):
        one = one_degree(scope, strategy)
        if one is not None:
            ruled_out.append(one)
    low = len(ruled_out) + 1
    not_ruled_out = []
    if low < hops:
        span = hops - 1 if hops - 1 > low else None
        not_ruled_out.append(DegreeCheck(degrees=low, up_to=span, evidence=tried(scope, record)))
    found = record.found_hops if record is not None else hops
    return Degrees(
        degrees=hops,
        shortest=low >= hops,
        shortened_from=found if found > hops else None,
        ruled_out=ruled_out,
        not_ruled_out=not_ruled_out,
        spent_usd=record.spent_usd if record is not None else 0.0,
        allowance_usd=record.allowance_usd if record is not None else 0.0,
    )


def one_degree(scope: SearchScope, strategy: Shortener) -> DegreeCheck | None:
    """One degree ruled out, with its evidence, or None when the run cannot say so."""
    state = scope.state
    pair = [state.person_a.key, state.person_b.key]
    page = strategy.pair_page(scope, pair)
    if page is None or scope.graph.confidence(*pair) is not None:
        return None  # the pair's search was never read, or a photo shows both (a doubted one)
    if strategy.shorter(scope, 1) is not None:
        return None  # a photo of both is still to be recognised
    query, results = page
    return DegreeCheck(degrees=1, evidence=f"{plural(results, 'result')} for {query!r}, no photo of both")


def tried(scope: SearchScope, record: Shortening | None) -> str:
    """What the search for a shorter chain did, in words."""
    budgets = scope.options.budgets
    if record is None or record.stopped == "not_run":
        off = budgets.shorten_share <= 0 and budgets.shorten_min_usd <= 0
        return "not looked for (the run's shortenShare is 0)" if off else "not looked for"
    pairs = list(dict.fromkeys(f"{x} — {y}" for x, y in record.tried))  # a pair may take two tries
    if pairs:
        more = len(pairs) - _LISTED
        listed = ", ".join(pairs[:_LISTED]) + (f" and {more} more" if more > 0 else "")
        done = f"{plural(len(pairs), 'pair')} checked ({listed})"
    else:
        done = "nothing checked"
    if record.asked:
        done += ", the planner asked for a shorter chain"
    why = {
        "shorter_found": "a chain of one degree was proven",
        "exhausted": "no other lead the run holds suggests a shorter chain",
        "attempts": f"{len(record.tried)} checks are the most one answer waits for",
        "allowance": f"the next check would have passed the ${record.allowance_usd:.4f} allowed for it",
        "budget": "a budget ran out",
    }[record.stopped]
    return f"{done}; {why}"

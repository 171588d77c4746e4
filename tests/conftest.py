"""How the suite spreads over workers (scripts/test.sh runs pytest-xdist with `--dist loadgroup`).

- A module's tests run on one worker, which builds its module-scoped fixtures once.
- The tests that read the synthesized CDK app (tests/infrastructure/) share one worker, which
  synthesizes it once; the context variant's tests share another, so the two syntheses run side by side.
- The slowest start first (the syntheses, then the browser tests, then integration), so none of them
  is left to run alone at the end; the many short unit tests fill in around them.
Without workers (`pytest` alone, or `-n 0`) only the order changes.

The groups are the scheduler's own (below), not `xdist_group` marks: pytest 9.2 keeps a test's id
where xdist 3.8 no longer writes the mark's `@group` suffix, so with marks every test went its own way
(pytest-xdist issue 1386): both workers synthesized both apps and built each module fixture twice.
"""

from __future__ import annotations

from typing import Any

import pytest

# Collection order, slowest kind first; a test's rank is its first matching prefix.
ORDER = ("tests/infrastructure/", "tests/e2e/", "tests/integration/handlers/", "tests/integration/")
SYNTHESES = {"tests/infrastructure/test_context_variants.py": "cdk-variant", "tests/infrastructure/": "cdk"}


def _rank(item: pytest.Item) -> int:
    return next((i for i, prefix in enumerate(ORDER) if item.nodeid.startswith(prefix)), len(ORDER))


def group_of(nodeid: str) -> str:
    """The unit a worker runs whole: its synthesis for the CDK tests, else the test's module."""
    module = nodeid.split("::", 1)[0]
    return next((group for prefix, group in SYNTHESES.items() if module.startswith(prefix)), module)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: within a rank, collection order


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return ByGroup(config, log)

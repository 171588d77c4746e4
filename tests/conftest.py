"""How the suite spreads over workers (scripts/test.sh runs pytest-xdist with `--dist loadgroup`).

- The tests that read the synthesized CDK app share one worker, which synthesizes it once; the context
  variant's tests share another, so the two syntheses run side by side.
- A module's tests that share a module-scoped fixture stay on one worker, which builds it once.
- The slowest start first (the syntheses, then the browser tests, then integration), so none of them
  is left to run alone at the end; the many short unit tests fill in around them.
Without workers (`pytest` alone, or `-n 0`) only the order changes.
"""

from __future__ import annotations

import pytest

# Collection order, slowest kind first; a test's rank is its first matching prefix.
ORDER = ("tests/infrastructure/", "tests/e2e/", "tests/integration/handlers/", "tests/integration/")
SHARED_SYNTHESES = {"tests/infrastructure/test_context_variants.py": "cdk-variant"}


def _rank(item: pytest.Item) -> int:
    return next((i for i, prefix in enumerate(ORDER) if item.nodeid.startswith(prefix)), len(ORDER))


def _group(item: pytest.Item) -> str | None:
    module = item.nodeid.split("::", 1)[0]
    if item.get_closest_marker("cdk"):
        return SHARED_SYNTHESES.get(module, "cdk")
    fixtures = getattr(item, "_fixtureinfo", None)
    if fixtures is None:
        return None
    for definitions in fixtures.name2fixturedefs.values():
        if any(d.scope == "module" and d.baseid.startswith(module) for d in definitions):
            return module
    return None


def pytest_configure(config: pytest.Config) -> None:
    # xdist registers it too, but `-p no:xdist` must not make the marks below unknown
    config.addinivalue_line("markers", "xdist_group(name): run on the worker of this group (pytest-xdist)")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if group := _group(item):
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=_rank)  # stable: within a rank, collection order

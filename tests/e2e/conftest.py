"""One chromium per worker and module: the module's tests each get a fresh context in it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.browser import CHROMIUM_OF_THIS_WORKER


@pytest.fixture(scope="module", autouse=True)
def _close_chromium_after_the_module() -> Iterator[None]:
    yield
    CHROMIUM_OF_THIS_WORKER.close()

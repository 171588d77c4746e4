from __future__ import annotations

import pytest

from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.synthetic import default_world_path
from visual_degrees_tools.sandbox.world import World, load_world


@pytest.fixture(scope="session")
def default_world() -> World:
    return load_world(default_world_path())


@pytest.fixture(scope="session")
def default_web(default_world: World) -> PhotoWeb:
    return PhotoWeb(default_world, seed=0)

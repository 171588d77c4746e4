"""Rewrite the shipped default world from its seed: `python scripts/sandbox_default_world.py [PATH]`."""

from __future__ import annotations

import sys
from pathlib import Path

from visual_degrees_tools.sandbox.synthetic import write_default_world

if __name__ == "__main__":
    print(write_default_world(Path(sys.argv[1]) if len(sys.argv) > 1 else None))

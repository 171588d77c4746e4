"""Compare two `visual-degrees bench --json` outputs on every key but the timing and machine ones.

    python scripts/bench_compare.py before.json after.json

Exits 0 when the figures are identical (a restructuring that claims "no change in behaviour" must
pass this on the same command before and after), else 1, listing each key that differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TIMING = {"world_load_s", "truth_build_s", "machine"}


def compared(key: str) -> bool:
    return key not in TIMING and not key.startswith("cpu_ms_") and not key.endswith("_wall_s")


def main(argv: list[str]) -> int:
    before, after = (json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:3])
    keys = sorted(k for k in before.keys() | after.keys() if compared(k))
    differ = [k for k in keys if before.get(k) != after.get(k)]
    print(f"compared {len(keys)} keys: {'identical' if not differ else 'different'}")
    for key in differ:
        print(f"  {key}: {before.get(key)!r} != {after.get(key)!r}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

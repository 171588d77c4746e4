"""Compare two `visual-degrees bench --json` outputs on every key but the timing and machine ones.

    python scripts/bench_compare.py before.json after.json

Exits 0 when every key of `before` is in `after` with the same value (a restructuring that claims
"no change in behaviour" must pass this on the same command before and after), else 1, listing each
key that differs or went missing. Keys only `after` has (figures added since) are listed, not
compared: a new figure changes no old one.
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
    keys = sorted(k for k in before if compared(k))
    differ = [k for k in keys if k in after and before[k] != after[k]]
    missing = [k for k in keys if k not in after]
    added = sorted(k for k in after if k not in before and compared(k))
    print(f"compared {len(keys)} keys: {'identical' if not differ and not missing else 'different'}")
    for key in differ:
        print(f"  {key}: {before[key]!r} != {after[key]!r}")
    for key in missing:
        print(f"  {key}: missing (was {before[key]!r})")
    if added:
        print(f"added, not compared: {', '.join(added)}")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

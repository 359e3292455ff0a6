"""Precision and recall of the false-confirmation and medical-advice gates on phrase sets written
for them (``tests/safety/gate_phrases.py``: at least 60 phrases each, half positive). The target,
recall and precision each at least ``TARGET`` (0.95), is the one the test holds them to.

Run: .venv/bin/python benchmarks/bench_gates.py [--show]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.safety.gate_scores import TARGET, all_scores  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every miss and false alarm")
    show = parser.parse_args().show
    ok = True
    for s in all_scores():
        met = s.precision >= TARGET and s.recall >= TARGET
        ok &= met
        print(f"{s.gate:34} {s.n} phrases ({s.tp + s.fn} positive): precision {s.precision:.3f}  "
              f"recall {s.recall:.3f}  (tp {s.tp}, fp {s.fp}, fn {s.fn}, tn {s.tn})  "
              f"target >= {TARGET:g}/{TARGET:g} {'met' if met else 'NOT met'}")
        if show:
            for text in s.misses:
                print(f"  missed      : {text}")
            for text in s.false_alarms:
                print(f"  false alarm : {text}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

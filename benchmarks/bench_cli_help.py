"""`rubricate --help` wall time (target < 0.5 s): runs the real console script N times."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

N = 15
exe = Path(sys.executable).with_name("rubricate")
times = []
for _ in range(N):
    t = time.perf_counter()
    subprocess.run([str(exe), "--help"], capture_output=True, check=True)
    times.append(time.perf_counter() - t)
times.sort()
median, p95 = statistics.median(times), times[int(0.95 * (N - 1))]
print(f"rubricate --help: median {median * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms over {N} runs "
      f"(target < 500 ms: {'PASS' if p95 < 0.5 else 'FAIL'})")

# What --help imports, from inside the same console entry point: litellm and torch must not load.
probe = ("import sys\nsys.argv = ['rubricate', '--help']\nfrom reviewer.cli import main\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\nprint('MODULES', ' '.join(sys.modules))")
out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                     cwd=Path(__file__).resolve().parent.parent).stdout
mods = {m.split(".")[0] for m in out.split("MODULES", 1)[1].split()}
heavy = sorted(mods & {"litellm", "torch", "sentence_transformers", "transformers", "textual", "pyarrow"})
print(f"rubricate --help imports : {', '.join(heavy) if heavy else 'no litellm, torch, textual or pyarrow'}")

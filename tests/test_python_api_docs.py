"""docs/python.md is run: every ```python block of it, in order, in one namespace, in a folder
holding the demo database as the page says to build it (``rubricate demo --db demo.db
--build-only``). Without pandas, ``Store.scores()`` stops with one line naming the extra to
install (pandas made unimportable in a process of its own). ``import rubricate`` loads neither
pandas nor the database layer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from reviewer.services.tidy import TIDY_COLUMNS
from tests.cli import run_cli

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "python.md"


def python_blocks(text: str) -> list[str]:
    """The page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def test_every_example_runs_on_the_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["demo", "--db", "demo.db", "--build-only"], capsys)
    assert code == 0, err
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    namespace: dict[str, object] = {"__name__": "docs_python"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{PAGE.name} block {i + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    # what the examples printed: the table's shape, a report line per dimension, the statistics
    rows = namespace["scores"]
    assert isinstance(rows, pd.DataFrame) and len(rows) > 500 and f"({len(rows)}, {len(TIDY_COLUMNS)})" in out
    assert "person–judge pairs" in out and "median 5" in out
    assert "only 6 labelled items" in out  # the corrected mean's warning


def test_the_page_has_python_blocks() -> None:
    """The extraction sees the blocks (a page without any would run nothing and pass)."""
    assert python_blocks("x\n```python\na = 1\n```\n\n```\nshell\n```\n") == ["a = 1\n"]


def test_scores_without_pandas_is_one_line(tmp_path: Path) -> None:
    """pandas unimportable (a ``sys.modules`` entry of None makes ``import pandas`` fail): the
    store still opens and calibrates, ``scores()`` names the extra, in one line."""
    db = tmp_path / "demo.db"
    built = subprocess.run([sys.executable, "-m", "reviewer", "demo", "--db", str(db), "--build-only"],
                           capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert built.returncode == 0, built.stderr
    code = ("import sys\nsys.modules['pandas'] = None\nimport rubricate\n"
            "store = rubricate.open(sys.argv[1])\n"
            "print(len(store.calibrate('general-quality@1.0.0', bootstrap=0)['dimensions']))\n"
            "try:\n    store.scores('general-quality@1.0.0')\n"
            "except ImportError as exc:\n    print('refused:', exc)\n")
    out = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "5" and len(lines) == 2
    assert lines[1].startswith("refused: ") and "pip install 'rubricate[notebook]'" in lines[1]


def test_importing_rubricate_loads_no_pandas_and_no_database() -> None:
    """``import rubricate`` loads neither pandas nor the database layer; its ``__version__`` is the
    installed distribution's (what ``rubricate --version`` prints)."""
    from importlib.metadata import version

    out = subprocess.run([sys.executable, "-c", "import rubricate, sys\nprint(rubricate.__version__)\n"
                          "print(' '.join(sys.modules))"], capture_output=True, text=True, check=True, cwd=ROOT)
    first, rest = out.stdout.split("\n", 1)
    assert first == version("rubricate")
    mods = set(rest.split())
    assert "rubricate.stats" in mods and "numpy" in mods  # the check sees what was imported
    assert not [m for m in mods if m.split(".")[0] in ("pandas", "sqlalchemy", "pyarrow", "textual", "litellm")]

"""The layers of ``reviewer/`` are enforced by import-linter (``[tool.importlinter]`` in
pyproject.toml): the tree as it is keeps every contract, and a copy of it with one wrong import
added breaks the contract that forbids it (so the contracts are not vacuous)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"

#: (file to add a line to, the wrong import, the contract that must break)
WRONG = [
    ("reviewer/store/importer.py", "from reviewer.io.itemfile import iter_rows",
     "the store does not read item files"),
    ("reviewer/tui/screens/queue.py", "from reviewer.tui.app import ReviewApp",
     "screens and widgets do not import the app module"),
    ("reviewer/services/estimates.py", "from reviewer.cli import app",
     "layers inside reviewer"),
    ("reviewer/domain/item.py", "from reviewer.store.tables import Item",
     "the domain fold is pure"),
    ("calibration/detail.py", "from rubrics.schema import Rubric",
     "calibration does not depend on rubrics"),
    ("reviewer/services/run_report.py", "import sqlalchemy",
     "SQL only in the store"),
    ("reviewer/tui/widgets/chat.py", "import litellm",
     "the TUI never imports litellm"),
    ("reviewer/store/queue_settings.py", "from calibration.gold import gold_accuracy",
     "the store never imports calibration"),
    ("reviewer/tui/screens/calibration.py", "from calibration.report import dimension_report",
     "the front ends reach calibration only through the services"),
    ("reviewer/cli/data_cmds.py", "from reviewer.tui.app import make_app",
     "the CLI imports the TUI only to start it"),
    ("reviewer/services/gold.py", "import rubricate",
     "layers: rubricate (the Python API) over reviewer"),
    ("reviewer/services/team.py", "import pandas",
     "only the Python API imports pandas"),
]


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT), "--no-cache", "--config", str(root / "pyproject.toml")],
                          capture_output=True, text=True, cwd=root, env=env, timeout=300)


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "tree"
    for pkg in ("rubrics", "calibration", "reviewer", "rubricate"):
        shutil.copytree(ROOT / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.jsonl", "*.db"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is a dev dependency: pip install -e '.[dev]'")
def test_the_tree_keeps_every_contract() -> None:
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "BROKEN" not in out.stdout and "0 broken" in out.stdout


@pytest.mark.skipif(not LINT.exists(), reason="import-linter is a dev dependency: pip install -e '.[dev]'")
def test_a_wrong_import_breaks_its_contract(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    assert _lint(tree).returncode == 0  # the copy itself is clean
    for path, line, _ in WRONG:
        target = tree / path
        target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    out = _lint(tree)
    assert out.returncode != 0
    for path, _line, contract in WRONG:
        # a contract with ignored imports reads "… BROKEN (n ignored imports)"
        broken = [ln for ln in out.stdout.splitlines() if ln.endswith("BROKEN") or " BROKEN (" in ln]
        assert any(ln.startswith(contract) for ln in broken), (contract, out.stdout)
        module = path.removesuffix(".py").replace("/", ".")
        assert module in out.stdout, (module, out.stdout)

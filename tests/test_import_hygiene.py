"""The UI cannot leak into the pure packages, and slow imports stay out of --help and the TUI."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("litellm", "torch", "sentence_transformers")


def imported(package: Path, members: bool = False) -> list[tuple[str, str]]:
    """(file, module) for every absolute import anywhere in ``package`` (at any depth); with
    ``members``, ``from M import N`` also gives ``M.N`` (N may be a module)."""
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + ([f"{node.module}.{a.name}" for a in node.names] if members else [])
            found += [(str(path.relative_to(package.parent)), n) for n in names]
    return found


def forbidden_imports(package: Path, banned: tuple[str, ...]) -> list[str]:
    """Every import of a banned top-level module anywhere in ``package`` (at any depth)."""
    return [f"{path}: {n}" for path, n in imported(package) if n.split(".")[0] in banned]


def test_rubrics_and_calibration_never_import_the_ui_or_the_store() -> None:
    assert forbidden_imports(ROOT / "rubrics", ("textual", "reviewer", "sqlalchemy", "sqlmodel")) == []
    assert forbidden_imports(ROOT / "calibration", ("textual", "reviewer", "rubrics", "sqlalchemy")) == []


def test_the_product_never_imports_scipy() -> None:
    """Importing scipy.stats costs ``calibrate`` about a second of CPU at a million ratings
    (benchmarks/bench_calibrate_scale.py); calibration/ranks.py computes the correlations instead
    and the tests compare them with scipy's."""
    for package in ("rubrics", "calibration", "reviewer", "rubricate"):
        assert forbidden_imports(ROOT / package, ("scipy", "sklearn")) == []


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    pkg = tmp_path / "fakepkg"
    pkg.mkdir()
    (pkg / "mod.py").write_text("def f():\n    import textual.app\n")
    assert forbidden_imports(pkg, ("textual",)) == ["fakepkg/mod.py: textual.app"]


def private_imports(package: Path) -> list[str]:
    """Every name starting with one underscore that ``package`` imports from a module of the
    project (``from reviewer.x import _name``, at any depth)."""
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PROJECT:
                found += [f"{path.relative_to(package.parent)}: {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    return found


PROJECT = ("rubrics", "calibration", "reviewer", "rubricate")


def test_the_python_api_and_the_judge_read_only_public_names() -> None:
    """The Python API is the product's public face, and the judge's live and batch clients share
    their rules: neither reaches into another module's private names."""
    assert private_imports(ROOT / "rubricate") == []
    assert private_imports(ROOT / "rubrics") == []


def test_the_checker_sees_a_private_import(tmp_path: Path) -> None:
    pkg = tmp_path / "fakepkg"
    pkg.mkdir()
    (pkg / "mod.py").write_text("def f():\n    from reviewer.cli.data_cmds import _store, open_store\n")
    assert private_imports(pkg) == ["fakepkg/mod.py: reviewer.cli.data_cmds._store"]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return set(out.stdout.split())


def test_help_imports_no_litellm_torch_or_textual() -> None:
    mods = _modules_after("import sys\nsys.argv=['rubricate','--help']\nfrom reviewer.cli import main\n"
                          "try:\n    main()\nexcept SystemExit:\n    pass")
    # pyarrow: only `export --format parquet` loads it; pandas: only the Python API's scores()
    assert not [m for m in mods if m.split(".")[0] in (*HEAVY, "textual", "pyarrow", "pandas")]
    assert "typer" in mods  # the check can see what was imported


def test_the_tui_imports_no_litellm_or_torch() -> None:
    mods = _modules_after("from reviewer.tui.app import make_app\nimport reviewer.tui.screens.safety\n"
                          "import reviewer.store")
    assert "textual" in mods
    assert not [m for m in mods if m.split(".")[0] in (*HEAVY, "pandas")]


def test_the_program_freezes_what_is_left_before_it_exits() -> None:
    """``python -m reviewer`` (and the ``rubricate`` script) run :func:`reviewer.cli.run`: the
    command, then ``gc.freeze()``, so the exit skips collection passes over the objects left
    (~0.2 s with SQLAlchemy loaded). Seen from an exit handler registered before the command
    ran; a command that fails still freezes."""
    code = ("import atexit, gc, runpy, sys\n"
            "atexit.register(lambda: print('frozen', gc.get_freeze_count()))\n"
            "sys.argv = ['rubricate'] + sys.argv[1:]\n"
            "runpy.run_module('reviewer', run_name='__main__')\n")
    for args, status in ((["--help"], 0), (["calibrate", "--db", "/nonexistent/x/y.db", "--format", "nope"], 1)):
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == status, out.stderr
        frozen = int(out.stdout.rsplit("frozen", 1)[1])
        assert frozen > 1000  # every module, class and function of the command was moved out of the collector


def test_the_program_leaves_no_write_ahead_log_behind(tmp_path: Path) -> None:
    """SQLite removes a database's write-ahead log when its last connection closes; a log left
    behind (after an import, every page written) slows every later read. With what is left frozen
    at exit (above) the collector no longer closes the connections: an exit handler does. Shown
    leaving the log without that handler."""
    db = tmp_path / "store.db"
    made = subprocess.run([sys.executable, "-m", "reviewer", "rubric", "add", str(ROOT / "rubrics" / "library" /
                                                                                "general-quality.yaml"),
                           "--db", str(db)], capture_output=True, text=True, cwd=ROOT)
    assert made.returncode == 0, made.stderr  # calibrate reads a database: it creates none
    code = ("import atexit, runpy, sys\n"
            "if sys.argv[1] == 'unguarded':\n"
            "    import reviewer.store.engine as e\n"
            "    atexit.unregister(e._dispose_at_exit)\n"
            "sys.argv = ['rubricate', 'calibrate', '--db', sys.argv[2]]\n"
            "runpy.run_module('reviewer', run_name='__main__')\n")
    for mode, log_left in (("guarded", False), ("unguarded", True)):
        out = subprocess.run([sys.executable, "-c", code, mode, str(db)], capture_output=True, text=True, cwd=ROOT)
        assert "the store has items for none" in out.stderr  # the store was opened
        assert (tmp_path / "store.db-wal").exists() is log_left, mode


def imports_of_test_modules(package: Path) -> list[str]:
    """Every import, anywhere in ``package``, of a test module (a module named ``test_*``):
    shared helpers live in modules of their own, so a test module's collection never runs
    another's."""
    return [f"{path}: {n}" for path, n in imported(package, members=True)
            if n.split(".")[0] == "tests" and n.split(".")[-1].startswith("test_")]


def test_no_test_module_imports_another() -> None:
    """(the benchmarks too: they reuse the tests' helpers)"""
    assert imports_of_test_modules(ROOT / "tests") == []
    assert imports_of_test_modules(ROOT / "benchmarks") == []

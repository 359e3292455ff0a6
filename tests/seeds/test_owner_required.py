"""An owner is part of every rubric: refused at save time without one, and ``rubric
import-flexeval`` takes it from ``--owner`` (FlexEval files name none).

Old code: ``owner`` was optional, and import-flexeval wrote ``owner: ''`` into every rubric.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubrics.errors import RubricError
from rubrics.library import bundled
from rubrics.loader import load_rubric_text
from tests.cli import run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "rubrics" / "fixtures" / "flexeval_rubric_metrics.yaml"
RUBRIC = """\
id: owned
version: 1.0.0
name: Owned
owner: support-evals
description: One judged dimension.
scale: {min: 1, max: 5}
dimensions:
  - {use: accuracy, weight: 1}
"""


@pytest.mark.parametrize("owner_line", ["", "owner: ''\n", "owner: '   '\n"])
def test_a_rubric_without_an_owner_is_refused(owner_line: str) -> None:
    with pytest.raises(RubricError) as bad:
        load_rubric_text(RUBRIC.replace("owner: support-evals\n", owner_line), "o.yaml")
    assert str(bad.value).startswith("o.yaml:1: owner-missing: a rubric needs an owner")
    assert load_rubric_text(RUBRIC).owner == "support-evals"


def test_every_bundled_rubric_names_its_owner() -> None:
    assert all(r.owner.strip() for r in bundled())


def test_import_flexeval_needs_owner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tutor.yaml"
    code, _, err = run_cli(["rubric", "import-flexeval", str(FIXTURE), "--out", str(out)], capsys)
    assert code == 1 and not out.exists()  # nothing half-written
    assert err.strip() == ("error: import-flexeval needs --owner NAME: every rubric has an owner, the person "
                           "or team who answers for it, and a FlexEval file names none")
    code, _, err = run_cli(["rubric", "import-flexeval", str(FIXTURE), "--owner", " ", "--out", str(out)], capsys)
    assert code == 1 and "needs --owner NAME" in err and not out.exists()
    code, _, err = run_cli(["rubric", "import-flexeval", str(FIXTURE), "--owner", "tutoring-team",
                            "--out", str(out)], capsys)
    assert code == 0, err
    assert load_rubric_text(out.read_text()).owner == "tutoring-team"
    db = str(tmp_path / "t.db")
    assert run_cli(["rubric", "add", str(out), "--db", db], capsys)[0] == 0

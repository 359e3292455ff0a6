"""The broken-rubric corpus: each file yields one line naming file, line and rule; exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.cli import main
from tests.cli import run_cli

BROKEN = Path(__file__).resolve().parents[1] / "broken_rubrics"
RULES = {
    "anchor_gap": ("anchor-gap", 12), "anchor_off_scale": ("anchor-off-scale", 15),
    "anchor_overlap": ("anchor-overlap", 23), "bad_version": ("bad-version", 2),
    "depends_on_cycle": ("depends-on-cycle", 10), "depends_on_unknown": ("depends-on-unknown", 20),
    "description_is_name": ("description-is-name", 17), "level_categorical": ("level", 11), "description_missing": ("description-missing", 16),
    "deterministic_without_rule": ("rule-missing", 16), "duplicate_id": ("duplicate-id", 16),
    "empty": ("empty-file", 1), "fill_words": ("fill-words", 11), "method_missing": ("method-missing", 16),
    "missing_id": ("id-missing", 1), "not_a_mapping": ("wrong-type", 1), "only_comments": ("empty-file", 1),
    "scale_inverted": ("scale", 4), "threshold_missing": ("threshold-missing", 16),
    "threshold_range": ("threshold-range", 10), "too_many_dimensions": ("too-many-dimensions", 4),
    "unknown_gate": ("unknown-gate", 5), "unknown_key": ("unknown-key", 10),
    "unknown_method": ("unknown-method", 18), "weights_sum": ("weights-sum", 5),
    "wrong_type_dimensions": ("dimensions-missing", 3), "wrong_type_weight": ("wrong-type", 9),
    "yaml_bomb": ("yaml-alias", 2), "yaml_syntax": ("yaml-syntax", 6), "yaml_tabs": ("yaml-syntax", 4),
    # hostile files (issue 13): see tests/hostile/test_rubric_files.py for the unguarded behaviour
    "duplicate_key": ("duplicate-key", 10), "yaml_tag": ("yaml-tag", 3), "key_reads_as_bool": ("wrong-type", 10),
    "pairwise_text": ("wrong-type", 24), "signoffs_zero": ("wrong-type", 25),
    "correction_examples_word": ("wrong-type", 25), "scale_huge": ("scale", 4), "rule_key": ("rule-key", 20),
    "regex_invalid": ("regex", 20), "regex_backtracking": ("regex-backtracking", 21),
    # ids and versions held strictly (issue 23): `$` let a trailing newline through, \d any digit
    "version_leading_zero": ("bad-version", 2), "version_trailing_newline": ("bad-version", 2),
    "version_prerelease_leading_zero": ("bad-version", 2), "version_arabic_digit": ("bad-version", 2),
    "id_trailing_newline": ("bad-id", 1), "id_too_long": ("bad-id", 1),
    "dimension_id_trailing_newline": ("bad-id", 16),
    # YAML's reader refuses a NUL byte before parsing: that was "this is a bug", not FILE:LINE
    "nul_byte": ("yaml-syntax", 7),
}


def validate(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code, _, err = run_cli(["rubric", "validate", str(path)], capsys)
    return code, err.strip().splitlines()


def test_the_corpus_is_complete() -> None:
    assert sorted(p.stem for p in BROKEN.glob("*.yaml")) == sorted(RULES)
    assert len(RULES) >= 20


@pytest.mark.parametrize("stem", sorted(RULES))
def test_one_clear_line(stem: str, capsys: pytest.CaptureFixture[str]) -> None:
    rule, line = RULES[stem]
    code, err = validate(BROKEN / f"{stem}.yaml", capsys)
    assert code == 1
    assert len(err) == 1, err
    assert err[0].startswith(f"error: {BROKEN / stem}.yaml:{line}: {rule}: "), err[0]


def test_five_megabyte_file_is_refused_before_parsing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("id: big\nversion: 1.0.0\n# " + "x" * 5_000_000 + "\n")
    code, err = validate(big, capsys)
    assert code == 1 and len(err) == 1 and "file-too-large" in err[0]


@pytest.mark.parametrize("stem", ["yaml_bomb", "yaml_syntax", "weights_sum"])
def test_the_real_console_script_prints_no_traceback(stem: str) -> None:
    exe = Path(sys.executable).with_name("rubricate")
    proc = subprocess.run([str(exe), "rubric", "validate", str(BROKEN / f"{stem}.yaml")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert RULES[stem][0] in proc.stderr


def test_a_good_and_a_bad_file_together(capsys: pytest.CaptureFixture[str]) -> None:
    from rubrics.library import bundled_paths

    old = sys.argv
    sys.argv = ["rubricate", "rubric", "validate", str(bundled_paths()[0]), str(BROKEN / "weights_sum.yaml")]
    try:
        with pytest.raises(SystemExit) as exc:
            main()
    finally:
        sys.argv = old
    out = capsys.readouterr()
    assert exc.value.code == 1 and out.out.startswith("ok ") and "weights-sum" in out.err

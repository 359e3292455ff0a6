"""Every published value in the reference file, through the calibration code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.agreement import Weighting, gwet_from_table, kappa_from_table
from calibration.alpha import Level, krippendorff_alpha

REF = json.loads((Path(__file__).resolve().parents[1] / "data" / "agreement_vectors.json").read_text())


def _matrix(rows: list[list[float | None]]) -> np.ndarray:
    """Rows are coders in the file; calibration takes units × raters."""
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float).T


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_2011_all_levels(level: Level) -> None:
    entry = REF["krippendorff_2011"]
    value = krippendorff_alpha(_matrix(entry["data"]), level)
    assert value is not None and round(value, 3) == entry["published"][level]


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_wikipedia_example_to_six_places(level: Level) -> None:
    entry = REF["krippendorff_wikipedia"]
    value = krippendorff_alpha(_matrix(entry["data"]), level)
    assert value is not None and round(value, 6) == entry["published"][level]


@pytest.mark.parametrize("name", ["contingency_3x3", "contingency_4x4"])
@pytest.mark.parametrize("kind", ["unweighted", "linear", "quadratic"])
def test_irrcac_tables_kappa_and_gwet(name: str, kind: Weighting) -> None:
    entry = REF[name]
    table = np.array(entry["table_rows_rater1_cols_rater2"], dtype=float)
    pub = entry[kind]
    cohen = pub.get("cohen", pub.get("cohen_kappa"))
    gwet = pub.get("gwet", pub.get("gwet_ac1"))
    kappa = kappa_from_table(table, kind)
    ac = gwet_from_table(table, kind)
    assert kappa is not None and ac is not None
    places = 7 if name == "contingency_3x3" and kind == "unweighted" else 3
    # irrCAC prints 0.4315 → 0.432 (double rounding, see the file's note); 4 places first.
    if name == "contingency_4x4":
        from decimal import ROUND_HALF_UP, Decimal

        expected_kappa = float(Decimal(str(round(kappa, 4))).quantize(Decimal("0.001"), ROUND_HALF_UP))
    else:
        expected_kappa = round(kappa, places)
    assert expected_kappa == pytest.approx(cohen, abs=1e-12)
    assert round(ac, places) == pytest.approx(gwet, abs=1e-12)

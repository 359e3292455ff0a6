"""Judges' verdicts on pairs against people's (``calibrate``'s ``pair_verdicts``): the store's
current verdicts handed to :mod:`calibration.pair_verdicts`, per judge model, and the figures
written in words for the table and Markdown reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from calibration.pair_verdicts import JudgedPair, verdict_figures

if TYPE_CHECKING:
    from reviewer.services.reports import PairVerdictFigures
    from reviewer.store.core import Store


def pair_verdict_report(store: Store, rubric_ref: str, draws: int = 1000,
                        seed: int = 0) -> dict[str, PairVerdictFigures] | None:
    """Per judge model, its current verdicts on the rubric's pairs against the people's current
    verdicts on the same pairs (choices made in the review screen and imported ones alike);
    None when no judge has given a verdict on a pair."""
    judged = store.pair_verdicts.pair_judgments(rubric_ref)
    if not judged:
        return None
    people: dict[tuple[int, int], list[int | None]] = {}
    for c in store.scores.pair_choice_rows(rubric_ref):
        people.setdefault((c.item_a_pk, c.item_b_pk), []).append(c.winner_item_pk)
    by_model: dict[str, list[JudgedPair]] = {}
    for j in judged:
        key = (min(j.item_a_pk, j.item_b_pk), max(j.item_a_pk, j.item_b_pk))
        by_model.setdefault(j.model, []).append(JudgedPair(j.item_a_pk, j.item_b_pk, j.winner_item_pk,
                                                           people.get(key, [])))
    return {m: cast("PairVerdictFigures", verdict_figures(v, draws, seed)) for m, v in sorted(by_model.items())}


def _pct(share: float | None, ci: list[float] | None) -> str:
    if share is None:
        return "—"
    return f"{share:.0%}" + (f" (95% CI {ci[0]:.0%}–{ci[1]:.0%})" if ci else "")


def verdict_lines(verdicts: dict[str, PairVerdictFigures] | None) -> list[str]:
    """One sentence per judge model (plain text: the caller escapes it for its medium)."""
    out = []
    for model, f in (verdicts or {}).items():
        parts = [f"agrees with the people's majority on {round((f['agreement'] or 0) * f['n_compared'])} of "
                 f"{f['n_compared']} verdicts, {_pct(f['agreement'], f['agreement_ci'])}"
                 if f["n_compared"] else "no verdict on a pair with a people's majority yet"]
        if f["kappa"] is not None:
            ci = f["kappa_ci"]
            parts.append(f"κ {f['kappa']:.2f}" + (f" (95% CI {ci[0]:.2f}–{ci[1]:.2f})" if ci else ""))
        parts.append(f"ties {_pct(f['tie_rate'], f['tie_rate_ci'])} of {f['n_verdicts']}")
        if f["n_decisive"]:
            parts.append(f"picks the item shown first {_pct(f['a_share'], f['a_share_ci'])} of {f['n_decisive']}")
        if f["n_both_orders"]:
            parts.append(f"flips {f['flips']} of {f['n_both_orders']} pairs seen in both orders")
        out.append(f"pair verdicts, {model}: " + "; ".join(parts))
    return out


__all__ = ["pair_verdict_report", "verdict_lines"]

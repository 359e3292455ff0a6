"""``rubricate queue show ITEM``: one item's whole state, as a person wants it from the command
line — its content, each dimension's judge (per model) and people's scores (with time, reason,
tags, blind and revision marks), a lead's adjudication, the effective scores, the overall (or why
it is incomplete), what capped it, its safety flags and their status, and its comments.

Everything comes from the item's fold (:mod:`reviewer.domain`, through the export record of
:func:`reviewer.store.importer.export_row`); nothing here derives a rule. Every piece of stored
text is shown through :mod:`reviewer.safetext` (never raw, never markup); ``--json`` writes the
characters a terminal would act on as JSON escapes (:func:`reviewer.safetext.json_text`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from reviewer.cli import DbOption
from reviewer.cli.data_cmds import _store, queue_app
from reviewer.domain.wording import score_text
from reviewer.errors import UserError
from reviewer.safetext import json_text, safe, safe_line

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store


def find_item(store: Store, item_id: str, dataset: str | None, rubric: str | None) -> int:
    """The key of the one item with this id; a one-line refusal when there is none or several."""
    found = store.items.items_by_id(item_id, dataset, rubric)
    where = "".join(f" {k} {v!r}" for k, v in (("in dataset", dataset), ("of rubric", rubric)) if v)
    if not found:
        raise UserError(safe_line(f"no item with id {item_id!r}{where}; `rubricate queue show` takes the id "
                                  "from the item file (see the queue list)"))
    if len(found) > 1:
        places = ", ".join(f"{ds or '(none)'} ({ref})" for _, ds, ref in found)
        flag = "--rubric" if len({ds for _, ds, _ in found}) == 1 else "--dataset"
        raise UserError(safe_line(f"item id {item_id!r} is in {len(found)} places: {places}; "
                                  f"give {flag} to pick one"))
    return int(found[0][0])


def item_record(store: Store, pk: int) -> dict[str, Any]:
    """The item's export record (:func:`reviewer.store.importer.export_row`) with its content, each
    model's judge score and rationale, and its safety flags with their decisions."""
    from reviewer.store.importer import export_row

    [(it, fold)] = list(store.items.item_folds(item_pks=[pk]))
    rubric = store.rubrics.get_rubric(it.rubric_ref)
    turns = store.items.turn_scores({pk: it.revision}).get(pk, {})
    rec = export_row(it, fold, rubric, turns, store.comments.comments([pk])[pk], store.items.stated_overalls({pk: it.revision}).get(pk),
                     store.corrections.corrections([pk])[pk])
    view = store.items.item_view(pk)
    for dim_id, d in rec["dimensions"].items():
        f = fold.dims[dim_id]
        d["why"] = f.why
        d["judge_by_model"] = [
            {"model": r.model, "score": r.score, "error": r.error, "rationale": r.rationale or None}
            for r in view.judge.get(dim_id, []) if r.turn is None]
    flags = []
    records = {fl.pk: fl for fl in view.flags}
    for fs in fold.safety.flags:
        fl = records.get(fs.flag.pk)
        flags.append({"id": fs.flag.pk, "gate": fs.flag.gate, "detector": fs.flag.detector, "status": fs.status,
                      "signoffs": fs.signoff_text(), "matched": fl.matched if fl else "",
                      "context": fl.context if fl else "",
                      "decisions": [{"reviewer": w, "decision": what, "reason": why}
                                    for w, what, why in (fl.decisions if fl else [])]})
    rec.update(variant=it.variant, input=it.input, output=it.output, conversation=it.conversation,
               context=it.context, reference=it.reference, flags=flags)
    return rec


def _num(x: Any) -> str:
    return score_text(x) if x is None or isinstance(x, int | float) else str(x)


def _when(at: str | None) -> str:
    """An ISO time as ``2026-11-23 21:05:09 UTC``."""
    return f"{at[:10]} {at[11:19]} UTC" if at and len(at) >= 19 else (at or "")


def _block(title: str, text: str) -> list[str]:
    body = safe(text).splitlines() or [""]
    return [title] + ["  " + line for line in body]


def item_lines(rec: dict[str, Any]) -> list[str]:
    """The record as text lines (every stored string made safe; none is read as markup)."""
    head = f"{rec['id']}  dataset {rec['dataset'] or '(none)'} · rubric {rec['rubric']} · revision {rec['revision']}"
    if rec["group"]:
        head += f" · group {rec['group']}/{rec.get('variant') or '?'}"
    out = [safe_line(head), ""]
    if rec.get("conversation"):
        out.append("conversation")
        for turn in rec["conversation"]:
            if isinstance(turn, dict):
                out += ["  " + line for line in _block(safe_line(f"{turn.get('role', '?')}:"), str(turn.get("content", "")))]
    else:
        out += _block("input", rec["input"] or "(no input)")
    if rec["output"] or not rec.get("conversation"):
        out += _block("output", rec["output"] or "(no output)")
    for key in ("context", "reference"):
        if rec.get(key):
            out += _block(key, rec[key])
    out.append("")
    if rec["overall"] is None:
        out.append(safe_line(f"overall: incomplete ({rec['incomplete']})"))
    else:
        out.append(safe_line(f"overall: {rec['overall']:.3f}  band {rec['band']}  "
                             f"{'pass' if rec['passed'] else 'fail'}  (judge alone: {_num(rec['judge_overall'])})"))
    if rec.get("judge_stated_overall"):
        stated = ", ".join(f"{_num(v)} ({m})" for m, v in rec["judge_stated_overall"].items())
        out.append(safe_line(f"judge's own overall: {stated} (as the judge stated it; not used)"))
    if rec["capped_by"]:
        out.append(safe_line("capped by: " + "; ".join(rec["capped_by"])))
    out.append(safe_line(f"safety: {rec['safety']}"))
    for fl in rec["flags"]:
        out.append(safe_line(f"  flag {fl['id']} {fl['gate']} ({fl['detector']}): {fl['status']}, "
                             f"{fl['signoffs']} signed off; matched {fl['matched']!r}"))
        if fl["context"]:
            out.append(safe_line(f"    why: {fl['context']}"))
        for d in fl["decisions"]:
            out.append(safe_line(f"    {d['reviewer']}: {d['decision']} ({d['reason']})"))
    out += ["", "dimensions"]
    for dim, d in rec["dimensions"].items():
        line = f"  {dim}: effective {_num(d['effective'])}"
        line += f" ({d['source'] if d['source'] else d['why'] or d['state']})"
        line += f"  judge {_num(d['judge'])}" + (f" (error: {d['judge_error']})" if d["judge_error"] else "")
        if d["bias"] is not None:
            line += f"  bias {d['bias']:+.2f}"
        out.append(safe_line(line))
        for j in d["judge_by_model"]:
            score = f"error: {j['error']}" if j["score"] is None else _num(j["score"])
            out.append(safe_line(f"    judge {j['model'] or '(no model)'}: {score}"
                                 + (f" — {j['rationale']}" if j["rationale"] else "")))
        for t in d.get("turns", []):
            score = _num(t["score"]) if t.get("score") is not None else (
                f"error: {t['error']}" if t.get("error") else "not applicable")
            out.append(safe_line(f"    turn {t['turn']}: {score}  ({d.get('turn_aggregate')} of the turns)"))
        for h in d["human_scores"]:
            marks = [h["kind"]] + (["blind"] if h["blind"] else []) + (
                [f"blind score {_num(h['blind_score'])}"] if h["blind_score"] is not None and not h["blind"] else [])
            if not h["current_revision"]:
                marks.append(f"revision {h['revision']}, earlier content")
            text = f"    {h['reviewer']}: {_num(h['score'])} ({', '.join(marks)}) {_when(h['created_at'])}"
            if h["reason"]:
                text += f" — {h['reason']}"
            if h["tags"]:
                text += f" [{', '.join(h['tags'])}]"
            out.append(safe_line(text))
    out += ["", f"comments ({len(rec['comments'])})"]
    for c in rec["comments"]:
        rev = "" if c["current_revision"] else f" (on revision {c['revision']}, earlier content)"
        out.append(safe_line(f"  {c['author']} · {_when(c['created_at'])}{rev}:"))
        out += ["    " + line for line in safe(c["text"]).splitlines()]
    out += ["", f"corrected answers ({len(rec['corrections'])})"]
    for c in rec["corrections"]:
        rev = "" if c["current_revision"] else f" (of revision {c['revision']}, earlier content)"
        out.append(safe_line(f"  {c['author']} · {_when(c['created_at'])}{rev}:"))
        out += ["    " + line for line in safe(c["text"]).splitlines()]
    return out


@queue_app.command("show")
def queue_show(
    item: Annotated[str, typer.Argument(help="The item's id (as in the item file).")],
    dataset: Annotated[str | None, typer.Option(help="The item's dataset, when the id is in several.")] = None,
    rubric: Annotated[str | None, typer.Option(help="The item's rubric, ID@VERSION, when the id is in several.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object instead of text.")] = False,
    db: DbOption = None,
) -> None:
    """Show one item's whole state: content, judge and people's scores (time, reason, tags),
    adjudication, effective scores, overall or why incomplete, caps, safety flags, comments.

    Example: rubricate queue show chat-17 --dataset march
    """
    store = _store(db, existing=True)
    rec = item_record(store, find_item(store, item, dataset, rubric))
    if as_json:
        typer.echo(json_text(rec, default=str, indent=2))
        return
    typer.echo("\n".join(item_lines(rec)))

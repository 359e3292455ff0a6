"""``rubric show`` (everything that decides a score) and ``rubric dimensions`` (the wiki's
reference dimensions). Every piece of rubric text goes through safe text: a rubric file is
input, and its words are never read as markup."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from reviewer.safetext import safe_text
from rubrics.schema import Dimension, Rubric

#: What each gate's rules catch, for ``rubric show``.
GATE_TEXT = {
    "pii_exposure": "emails, phone numbers, SSNs, card numbers (Luhn), IBANs (checksum), IP addresses",
    "dangerous_instructions": "instructions to make explosives, poisons or drugs (refusals and defensive text excused)",
    "weapon_making": "instructions to build or convert firearms (refusals excused)",
    "malware_hacking": "instructions to break into systems or write malware (defensive text excused)",
    "self_harm": "encouragement or methods of self-harm (supportive text excused)",
    "medical_advice_without_disclaimer": "dosing, stopping medication or a diagnosis with no pointer to a professional",
    "false_confirmation": "a booking, order, cancellation or message claimed done with no successful tool call "
                          "in metadata.tool_calls",
    "silent_destructive_action": "a successful destructive tool call (delete, drop, wipe, overwrite...) in "
                                 "metadata.tool_calls that the output never mentions",
    "internal_data": "internal-only markings, internal host names, private network addresses, credentials",
}


def _num(x: float) -> str:
    return f"{x:g}"


def _scale(d: Dimension) -> str:
    text = f"{_num(d.scale.min)}–{_num(d.scale.max)}"
    if d.scale.levels:
        text += " [" + ", ".join(_num(v) for v in d.scale.levels) + "]"
    if d.judge_scale:
        text += f"\njudge: {_num(d.judge_scale.min)}–{_num(d.judge_scale.max)}"
    return text


def _decides(d: Dimension, rubric: Rubric) -> list[tuple[str, str]]:
    """Every setting of a dimension that changes its score, as (label, value) lines."""
    out: list[tuple[str, str]] = []
    if d.prompt:
        out.append(("prompt", d.prompt))
    if d.rule:
        out.append(("rule", json.dumps(dict(d.rule), ensure_ascii=False, default=str)))
    if d.choices:
        out.append(("choices", ", ".join(f"{k} = {_num(v)}" for k, v in d.choices.items())))
    for c in d.ceiling:
        out.append(("ceiling", f"while below {_num(c.below)}, overall ≤ {_num(c.cap)} "
                               f"(= {rubric.scale.normalise(c.cap):.2f} on 0–1)"))
    if d.depends_on:
        dep = d.depends_on
        span = " and ".join(x for x in (f"≥ {_num(dep.min)}" if dep.min is not None else "",
                                        f"≤ {_num(dep.max)}" if dep.max is not None else "") if x)
        out.append(("depends on", f"{dep.dimension} {span or 'scored'} (else not applicable)"))
    if d.role:
        out.append(("role", f"only {d.role} turns" if d.metric_level == "turn"
                    else f"only calls from {d.role} messages" if d.metric_level == "tool_call"
                    else f"only when the last message is from the {d.role}"))
    counts = [(f"calls to {t.name}" if t.name else "tool calls", t.min, t.max) for t in d.tool_calls]
    counts += [(f"matches of /{m.expression}/", m.min, m.max) for m in d.matches]
    for what, lo, hi in counts:
        span = " and ".join(x for x in (f"≥ {_num(lo)}" if lo is not None else "",
                                        f"≤ {_num(hi)}" if hi is not None else "") if x)
        out.append(("depends on", f"{what} {span or 'counted'} (else not applicable)"))
    if d.metric_level != "item":
        parts = {"turn": "the turns", "tool_call": "the tool calls"}.get(d.metric_level)
        level = d.metric_level + (f"; item score = {d.turn_aggregate} of {parts}" if parts else "")
        out.append(("level", level))
    if d.samples > 1:
        out.append(("samples", f"{d.samples} judge samples, score = their mean"))
    if d.params:
        out.append(("params", json.dumps(dict(d.params), ensure_ascii=False, default=str)))
    if d.method == "groundedness":
        out.append(("applies", "only when the item has context"))
    return out


def show_rubric(r: Rubric, console: Console) -> None:
    """Print the rubric: every dimension with everything that decides its score, then the
    rubric-wide rules (judge reply, gates, safety cap, bands, headline)."""
    console.print(Text.assemble(safe_text(r.name, "bold", newlines=False),
                                safe_text(f"  {r.ref}  owner {r.owner or '—'}  hash {r.content_hash[:12]}")))
    if r.description:
        console.print(safe_text(r.description))
    t = Table(show_lines=True)
    for col in ("dimension", "method", "weight", "pass ≥", "scale", "anchors", "what else decides the score"):
        t.add_column(col)
    for d in r.dimensions:
        anchors = "\n".join(f"{_num(a.low)}{'' if a.low == a.high else f'–{_num(a.high)}'}: {a.label}"
                            + (f" — {a.description}" if a.description else "") for a in d.anchors)
        decides = Text()
        for label, value in _decides(d, r):
            decides.append_text(safe_text(f"{label}: ", "bold"))
            decides.append_text(safe_text(value + "\n"))
        t.add_row(Text.assemble(safe_text(d.id + "\n"), safe_text(d.description, "dim")), safe_text(d.method),
                  f"{d.weight:.4g}" + ("" if d.weighted else "\n(reported)"), f"{_num(d.threshold)}",
                  safe_text(_scale(d)), safe_text(anchors) if anchors else Text("(computed)", style="dim"),
                  decides)
    console.print(t)
    lines = [f"overall: weighted mean of the normalised scores, then ceilings, then the safety cap; "
             f"judge: {r.judge.mode}, reply {r.judge.reply}, panel {r.judge.panel_aggregate}, "
             f"temperature {_num(r.judge.temperature)}"
             + (f", {r.judge.correction_examples} correction examples" if r.judge.correction_examples else "")]
    if r.headline:
        lines.append(f"headline score: {r.headline} (the item's top-level score and band)")
    lines.append(f"safety cap: overall ≤ {_num(r.safety_cap)} when a gate fires or a flag is confirmed")
    for gate in r.safety_gates:
        lines.append(f"gate {gate}: {GATE_TEXT.get(gate, '')}")
    if not r.safety_gates:
        lines.append("gates: none")
    lines.append("bands: " + ", ".join(f"{b.label} ≥ {_num(b.min)}" for b in sorted(r.bands, key=lambda b: -b.min)))
    for line in lines:
        console.print(safe_text(line))


def rubric_data(r: Rubric) -> dict[str, Any]:
    """Everything that decides a score, as plain data for ``rubric show --format json``: every
    field of the rubric (defaults included) but where it was loaded from and its hash."""
    import dataclasses

    data = dataclasses.asdict(r)
    data.pop("source", None)
    data.pop("content_hash", None)
    plain: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return plain


def dimensions_table() -> Any:
    """The wiki's ten reference dimensions with their defaults."""
    from rubrics.catalogue import REFERENCE

    t = Table(title="Reference dimensions (a rubric dimension may say use: ID and override any key)")
    for col in ("id", "definition", "catches", "method", "weight", "pass ≥", "note"):
        t.add_column(col)
    for ref in REFERENCE:
        weight = "gate" if ref.method == "gate" else f"{ref.weight:.2f}"
        threshold = "n/a" if ref.method == "gate" else _num(ref.threshold)
        t.add_row(safe_text(ref.id), safe_text(ref.description), safe_text(ref.catches), safe_text(ref.method),
                  weight, threshold, safe_text(ref.note))
    return t

"""JUDGE-BENCH: a dataset of human judgments in the benchmark's common JSON format (``dataset``,
``annotations`` declaring each metric with its category, scale or labels and prompt, and
``instances`` each with its text and, per metric, the people's aggregate and individual scores).

Each instance becomes an item (its ``id``; the ``instance`` text as ``output``). Each declared
metric is a dimension: ``graded`` and ``continuous`` on the scale from ``worst`` to ``best``,
``categorical`` on levels 0, 1, … in the order of ``labels_list``, each level labelled (nominal).
The people's aggregate — ``mean_human`` (graded, continuous) or ``majority_human`` (categorical) —
is imported as one aggregate human score (reviewer ``judge-bench-crowd`` or
``judge-bench-expert``): the individual scores name no annotator, so they are kept in the item's
metadata and never turned into invented reviewers. The file holds no judge scores; ``rubricate
judge`` makes them. The mapping table is ``docs/integrations.md``.
"""

from __future__ import annotations

from typing import Any

from reviewer.io.adapters.base import (
    AdapterError,
    Converted,
    load_json,
    number,
    obj,
    seq,
    slug,
    text,
)
from rubrics.draft import DraftDimension


def looks_like(doc: Any) -> bool:
    """Whether a parsed JSON document is a JUDGE-BENCH dataset."""
    return isinstance(doc, dict) and isinstance(doc.get("annotations"), list) and isinstance(
        doc.get("instances"), list) and "dataset" in doc


def convert(doc: Any, src: str) -> Converted:
    """The dataset as import records."""
    if not looks_like(doc):
        raise AdapterError(f"{src}:instances: missing; a JUDGE-BENCH file holds 'dataset', 'annotations' "
                           "and 'instances'")
    out = Converted("judge-bench", title=doc["dataset"] if isinstance(doc["dataset"], str) else None)
    expert = str(doc.get("expert_annotator", "")).lower() == "true"
    reviewer = "judge-bench-expert" if expert else "judge-bench-crowd"
    metrics = {}
    for j, decl in enumerate(doc["annotations"]):
        metric, info = _metric(decl, f"annotations[{j}]", src)
        metrics[metric] = info
        out.dimensions[info["dim"]] = info["draft"]
    for i, inst in enumerate(doc["instances"]):
        where = f"instances[{i}]"
        if not isinstance(inst, dict):
            raise AdapterError(f"{src}:{where}: {type(inst).__name__}, expected an object")
        out.records.append((where, _record(inst, doc, metrics, reviewer, where, src, out)))
    return out


def _metric(decl: Any, where: str, src: str) -> tuple[str, dict[str, Any]]:
    """A declared metric: its dimension id, category, labels and the draft of its dimension."""
    if not isinstance(decl, dict) or not isinstance(decl.get("metric"), str) or not decl["metric"]:
        raise AdapterError(f"{src}:{where}.metric: missing; each annotation declares its metric")
    metric, category = decl["metric"], decl.get("category")
    dim = slug(metric)
    prompt = decl.get("prompt")
    prompt = prompt.replace("{{ instance }}", "{output}").replace("{{instance}}", "{output}") \
        if isinstance(prompt, str) and prompt else None
    draft = DraftDimension(dim, metric, prompt=prompt, origin=f"JUDGE-BENCH {category} metric {metric!r}",
                           description=f"JUDGE-BENCH {category} metric {metric!r}: people's judgments, best "
                                       f"{decl.get('best')!r}, worst {decl.get('worst')!r}.")
    labels: list[str] = []
    if category == "categorical":
        labels = [text(v) for v in seq(decl.get("labels_list"))]
        if len(labels) < 2:
            raise AdapterError(f"{src}:{where}.labels_list: a categorical metric lists at least two labels")
        draft.labels = {float(k): label for k, label in enumerate(labels)}
        draft.level = "nominal"
    elif category in ("graded", "continuous"):
        for end in ("worst", "best"):
            value = number(decl.get(end))
            if value is None:
                raise AdapterError(f"{src}:{where}.{end}: {decl.get(end)!r}, expected a number")
            draft.saw(value)
        if category == "continuous":
            draft.level = "interval"
    else:
        raise AdapterError(f"{src}:{where}.category: {category!r}; JUDGE-BENCH's categories are graded, "
                           "continuous and categorical")
    return metric, {"dim": dim, "category": category, "labels": labels, "draft": draft}


def _record(inst: dict[str, Any], doc: dict[str, Any], metrics: dict[str, dict[str, Any]], reviewer: str,
            where: str, src: str, out: Converted) -> dict[str, Any]:
    item_id = inst.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)):
        raise AdapterError(f"{src}:{where}.id: {'missing' if item_id is None else repr(item_id)}, "
                           "expected text or a number")
    body = inst.get("instance")
    if not isinstance(body, str):
        out.no_home["an instance that is not text: stored as its JSON text"] += 1
    metadata: dict[str, Any] = {"source": "judge-bench", "dataset": doc.get("dataset")}
    if doc.get("dataset_url"):
        metadata["dataset_url"] = doc["dataset_url"]
    scores: dict[str, Any] = {}
    individual: dict[str, Any] = {}
    for metric, ann in obj(inst.get("annotations")).items():
        at = f"{where}.annotations.{metric}"
        info = metrics.get(metric)
        if info is None:
            raise AdapterError(f"{src}:{at}: metric {metric!r} is not declared in 'annotations'")
        if not isinstance(ann, dict):
            raise AdapterError(f"{src}:{at}: {type(ann).__name__}, expected an object")
        if seq(ann.get("individual_human_scores")):
            individual[info["dim"]] = ann["individual_human_scores"]
        if info["category"] == "categorical":
            label = ann.get("majority_human")
            if label is None:
                out.no_home["an instance with no majority label: no person's score for it"] += 1
                continue
            if text(label) not in info["labels"]:
                raise AdapterError(f"{src}:{at}.majority_human: {label!r} is not one of labels_list "
                                   f"({', '.join(info['labels'])})")
            scores[info["dim"]] = float(info["labels"].index(text(label)))
        else:
            mean = ann.get("mean_human")
            if mean is None:
                out.no_home["an instance with no mean_human: no person's score for it"] += 1
                continue
            value = number(mean)
            if value is None:
                raise AdapterError(f"{src}:{at}.mean_human: {mean!r}, expected a number")
            scores[info["dim"]] = value
    if individual:
        metadata["individual_human_scores"] = individual
        out.no_home["individual scores name no annotator: kept in metadata.individual_human_scores; the "
                    "aggregate imported as one score"] += 1
    record: dict[str, Any] = {"id": str(item_id), "output": text(body), "metadata": metadata}
    if scores:
        record["human"] = [{"reviewer": reviewer, "aggregate": True, "scores": scores}]
    return record



def read(data: bytes, src: str) -> Converted:
    """The file's bytes converted (:func:`convert` of the parsed document)."""
    return convert(load_json(data, src), src)


__all__ = ["convert", "looks_like", "read"]

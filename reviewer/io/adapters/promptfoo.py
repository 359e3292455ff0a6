"""promptfoo: the results JSON ``promptfoo eval -o results.json`` writes (``EvaluateSummaryV3``
under ``results``, or the older version 2 with the same ``results`` list).

Each result (one prompt × test × provider) becomes an item: its ``id`` (else
``test{testIdx}-prompt{promptIdx}-{provider}``), the rendered prompt as ``input``, the provider's
output as ``output``. Each assertion's component result is a judge score on a dimension named by
the assertion's ``metric`` (else its ``type``; a second assertion of one type in a test gets
``_2``): its ``score`` with its ``reason`` as the rationale, on a pass/fail scale (0 fail, 1 pass)
unless the scores run past it. A rating given in promptfoo's viewer (an assertion of type
``human``) is a person's score on the dimension ``overall`` (1 pass, 0 fail, the viewer's comment
as the reason), beside the judge's ``overall``: 1 when every other assertion passed. The
mapping table is ``docs/integrations.md``.
"""

from __future__ import annotations

import math
from typing import Any

from reviewer.io.adapters.base import AdapterError, Converted, load_json, need, obj, slug, text
from rubrics.draft import DraftDimension

#: Assertion types whose score a model gave (the rest are rules promptfoo ran itself).
MODEL_GRADED = {"llm-rubric", "g-eval", "model-graded-closedqa", "model-graded-factuality", "factuality",
                "answer-relevance", "context-faithfulness", "context-recall", "context-relevance",
                "conversation-relevance", "search-rubric", "select-best", "max-score", "classifier",
                "moderation", "similar"}
PASS_FAIL = {0.0: "fail", 1.0: "pass"}
#: Dimension ids by assertion name, made once (a file repeats a few names on every result).
_SLUGS: dict[str, str] = {}
#: The person who rated in promptfoo's viewer when the file names nobody.
VIEWER = "promptfoo-viewer"


def looks_like(data: Any) -> bool:
    """Whether a parsed JSON document is a promptfoo results file."""
    inner = data.get("results") if isinstance(data, dict) else None
    return isinstance(inner, dict) and isinstance(inner.get("results"), list) and (
        "evalId" in data or "config" in data or "version" in inner)


def convert(data: Any, src: str) -> Converted:
    """The results file as import records (see the module's docstring)."""
    if not looks_like(data):
        raise AdapterError(f"{src}:results.results: missing; a promptfoo results file (promptfoo eval -o "
                           "results.json) holds its results there")
    out = Converted("promptfoo")
    config = obj(data.get("config"))
    out.title = config.get("description") if isinstance(config.get("description"), str) else None
    grader = _grader(config)
    author = data.get("author") if isinstance(data.get("author"), str) and data.get("author") else None
    eval_id = data.get("evalId")
    verdicts: list[bool | None] = []
    for i, result in enumerate(data["results"]["results"]):
        where = f"results.results[{i}]"
        if not isinstance(result, dict):
            raise AdapterError(f"{src}:{where}: {type(result).__name__}, expected an object")
        record, passed = _record(result, where, src, out, grader, author, eval_id)
        out.records.append((where, record))
        verdicts.append(passed)
    if "overall" in out.dimensions:  # people rated in the viewer: the judge's verdict on every result
        for (_, record), passed in zip(out.records, verdicts, strict=True):
            if passed is not None:
                record.setdefault("judge", {"model": grader or "promptfoo", "scores": {}})
                record["judge"]["scores"]["overall"] = {"score": 1 if passed else 0}
    for dim in out.dimensions.values():  # a custom assertion may score past pass/fail: the range it used
        if dim.lowest < 0 or dim.highest > 1:
            dim.labels = {}
    return out


def _grader(config: dict[str, Any]) -> str | None:
    """The grading provider the config names for every test (``defaultTest.options.provider``)."""
    options = (config.get("defaultTest") or {}).get("options") if isinstance(config.get("defaultTest"), dict) else None
    provider = options.get("provider") if isinstance(options, dict) else None
    if isinstance(provider, dict):
        provider = provider.get("id")
    return provider if isinstance(provider, str) and provider else None


def _record(result: dict[str, Any], where: str, src: str, out: Converted, grader: str | None,
            author: str | None, eval_id: Any) -> tuple[dict[str, Any], bool | None]:
    """The result's import record, and whether every assertion but a person's passed (None:
    no assertion ran)."""
    provider = obj(result.get("provider"))
    provider_id = provider.get("id") if isinstance(provider.get("id"), str) else None
    item_id = result.get("id")
    if not isinstance(item_id, str) or not item_id:
        test_idx = need(result, "testIdx", int, src, where)
        prompt_idx = need(result, "promptIdx", int, src, where)
        item_id = f"test{test_idx}-prompt{prompt_idx}-{provider_id or 'provider'}"
    prompt = obj(result.get("prompt"))
    response = obj(result.get("response"))
    output = response.get("output")
    if output is None:
        output = ""
        if result.get("error") is None:
            out.no_home["a result with no output and no error: imported with empty output"] += 1
    elif not isinstance(output, str):
        out.no_home["a structured provider output: stored as its JSON text"] += 1
    test = obj(result.get("testCase"))
    metadata: dict[str, Any] = {"source": "promptfoo"}
    for key, value in (("eval_id", eval_id), ("provider", provider_id), ("provider_label", provider.get("label")),
                       ("prompt_label", prompt.get("label")), ("test_idx", result.get("testIdx")),
                       ("prompt_idx", result.get("promptIdx")), ("description", test.get("description")),
                       ("vars", result.get("vars")), ("error", result.get("error")),
                       ("latency_ms", result.get("latencyMs")), ("cost", result.get("cost")),
                       ("promptfoo_metadata", result.get("metadata") or None)):
        if value is not None and value != "":
            metadata[key] = value
    record: dict[str, Any] = {"id": item_id, "output": text(output), "metadata": metadata}
    if isinstance(prompt.get("raw"), str):
        record["input"] = prompt["raw"]
    grading = result.get("gradingResult")
    if not isinstance(grading, dict):
        return record, None
    return record, _scores(grading, record, f"{where}.gradingResult", src, out, grader, author)


def _scores(grading: dict[str, Any], record: dict[str, Any], where: str, src: str, out: Converted,
            grader: str | None, author: str | None) -> bool | None:
    """The component results as judge scores, a viewer rating as a person's; whether every
    assertion but a person's passed (None: none ran)."""
    components = grading.get("componentResults") or []
    if not isinstance(components, list):
        raise AdapterError(f"{src}:{where}.componentResults: {type(components).__name__}, expected a list")
    scores: dict[str, Any] = {}
    values: dict[str, str] = {}
    human: dict[str, Any] | None = None
    all_pass: bool | None = None
    dims = out.dimensions
    for j, comp in enumerate(components):
        if not isinstance(comp, dict):
            raise AdapterError(f"{src}:{where}.componentResults[{j}]: {type(comp).__name__}, expected an object")
        assertion = comp.get("assertion")
        if not isinstance(assertion, dict) or not isinstance(assertion.get("type"), str):
            out.no_home["a component result naming no assertion: not imported"] += 1
            continue
        passed = comp.get("pass")
        if type(passed) is not bool:
            need(comp, "pass", bool, src, f"{where}.componentResults[{j}]")  # words the problem
        if assertion["type"] == "human":
            reason = grading.get("comment") if isinstance(grading.get("comment"), str) else None
            human = {"score": 1 if passed else 0, **({"reason": reason} if reason else {})}
            continue
        all_pass = passed if all_pass is None else all_pass and passed
        score = comp.get("score")
        if type(score) is not float and type(score) is not int or not math.isfinite(score):
            raise AdapterError(f"{src}:{where}.componentResults[{j}].score: {score!r}, expected a number")
        dim = _dimension(assertion, scores, out)
        reason = comp.get("reason")
        scores[dim] = {"score": score, "rationale": reason} if type(reason) is str and reason else {"score": score}
        seen = dims[dim]
        if score < seen.lowest:
            seen.lowest = score
        if score > seen.highest:
            seen.highest = score
        value = assertion.get("value")
        if value is not None:
            values[dim] = value if type(value) is str else text(value)
    if human is not None:
        _overall(out)
        reviewer = author or VIEWER
        if author is None:
            out.no_home[f"a viewer rating names no person: stored as reviewer {VIEWER!r}"] += 1
        record["human"] = [{"reviewer": reviewer, "scores": {"overall": human}}]
    if scores:
        model = grader or "promptfoo"
        record["judge"] = {"model": model, "scores": scores}
    if values:
        record["metadata"]["assertion_values"] = values
    return all_pass


def _dimension(assertion: dict[str, Any], taken: dict[str, Any], out: Converted) -> str:
    """The dimension an assertion scores (its metric, else its type; ``_2``… for a repeat)."""
    kind = assertion["type"]
    metric = assertion.get("metric") if isinstance(assertion.get("metric"), str) and assertion.get("metric") else None
    name = metric or kind
    base = _SLUGS.get(name)
    if base is None:
        base = slug(name)
        if len(_SLUGS) < 10_000:
            _SLUGS[name] = base
    dim, n = base, 1
    while dim in taken:
        n += 1
        dim = f"{base[:60]}_{n}"
    if dim not in out.dimensions:
        value = assertion.get("value")
        graded = kind in MODEL_GRADED or kind.removeprefix("not-") in MODEL_GRADED
        out.dimensions[dim] = DraftDimension(
            dim, metric or kind, labels=dict(PASS_FAIL),
            prompt=(f"{value}\n\nOutput:\n{{output}}" if graded and isinstance(value, str) else None),
            description=(f"promptfoo {kind!r} assertion: {value}" if isinstance(value, str) and value
                         else None),
            origin=f"promptfoo {kind!r} assertion" + ("" if graded else ", a rule promptfoo ran"))
    return dim


def _overall(out: Converted) -> None:
    if "overall" not in out.dimensions:
        out.dimensions["overall"] = DraftDimension(
            "overall", "overall",
            description="A person's pass or fail of the whole output in promptfoo's viewer, against the "
                        "judge's: pass when every assertion passed.",
            labels=dict(PASS_FAIL), origin="promptfoo viewer rating")



def read(data: bytes, src: str) -> Converted:
    """The file's bytes converted (:func:`convert` of the parsed document)."""
    return convert(load_json(data, src), src)


__all__ = ["convert", "looks_like", "read"]

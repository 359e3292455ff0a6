"""``rubricate align``'s candidates: the judge set-ups tried on the dev items, each a one-dimension
rubric the ordinary judge pipeline runs (:class:`rubrics.judge.runner.JudgeRunner`).

- ``current``: the dimension as the rubric has it (its own ``correction_examples``, if any, drawn
  from dev items only);
- ``k2``, ``k4``, ``k8`` (``kN``): ``correction_examples: N`` with people's corrections of dev items
  — the store's :meth:`human_examples`, the examples ``judge`` itself shows, kept to dev items;
- ``rewrite``: the dimension's question as the judge model itself rewrites it from the dev
  disagreements (:func:`meta_prompt`: the prompt and the proposal are shown and stored);
- ``model:NAME`` (each extra ``--model``) and ``samples:N`` (``--samples N``): the current prompt
  with another model or more samples.

Test items are never among the examples or the disagreements: every source here is handed the
dev keys and keeps to them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from reviewer.errors import UserError
from rubrics.judge.cache import digest
from rubrics.judge.prompt import BuiltPrompt, Sandbox, describe_dimension
from rubrics.schema import Dimension, Rubric

if TYPE_CHECKING:  # (types alone: the store's module, imported, would load SQLAlchemy)
    from reviewer.services.align_result import Proposal
    from reviewer.store import Store

#: What ``--candidates`` may name (``model:NAME`` and ``samples:N`` come from those options).
KINDS = ("current", "k2", "k4", "k8", "rewrite")
DEFAULT = ("current", "k2", "k4", "k8", "rewrite")
#: Dev disagreements shown to the judge model when it rewrites the question (largest first).
REWRITE_SHOWN = 12
#: The longest rewritten question kept (characters): a longer proposal is that candidate's error.
REWRITE_MAX = 4000

#: One of people's corrections as the store hands it out (:meth:`human_examples`: ``id``,
#: ``item_key``, ``output``, ``human_score``, ``judge_score``, ``reason``…), passed on to the
#: judge runner as it is.
Example = Mapping[str, object]


@dataclass(frozen=True)
class Candidate:
    """One judge set-up: its one-dimension rubric, model, samples and the examples it may show."""

    name: str
    rubric: Rubric
    model: str
    samples: int | None = None
    #: The corrections it may show (dev items' only), newest first.
    examples: tuple[Example, ...] = ()
    #: Why it could not be built (then it is listed, never run).
    error: str | None = None

    @property
    def dimension(self) -> Dimension:
        """The one dimension it scores."""
        return self.rubric.dimensions[0]

    @property
    def k(self) -> int:
        """Correction examples per prompt."""
        return self.rubric.judge.correction_examples

    @property
    def prompt(self) -> str:
        """The dimension's question as the judge is asked it."""
        return self.dimension.prompt or ""

    @property
    def prompt_hash(self) -> str:
        """sha256 of what sets this candidate's prompts apart (question, definition, k, examples
        allowed, model, samples): equal hashes judge alike."""
        return digest([self.prompt, describe_dimension(self.dimension), self.k,
                       [e["id"] for e in self.examples], self.model, self.samples])


def parse_names(text: str | None) -> list[str]:
    """``--candidates`` as names (default: every kind), each checked."""
    if text is None:
        return list(DEFAULT)
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in KINDS and not (n.startswith("k") and n[1:].isdigit() and 0 < int(n[1:]) <= 64):
            raise UserError(f"--candidates {text!r}: unknown candidate {n!r}; use current, kN (N from 1 to 64, "
                            "e.g. k2,k4,k8) or rewrite")
    if "current" not in names:
        names.insert(0, "current")  # the baseline every difference is measured from
    return list(dict.fromkeys(names))


def one_dimension(rubric: Rubric, dim: Dimension, k: int | None = None, prompt: str | None = None) -> Rubric:
    """``rubric`` reduced to ``dim`` (no other dimension, gate or condition: only its own calls
    are made), one call per item, with ``k`` correction examples and question ``prompt`` when given."""
    judge = replace(rubric.judge, mode="per_dimension",
                    correction_examples=rubric.judge.correction_examples if k is None else k)
    return replace(rubric, dimensions=(replace(dim, depends_on=None, prompt=dim.prompt if prompt is None else prompt),),
                   judge=judge, safety_gates=(), safety_llm_check=())


def dev_examples(store: Store, rubric: Rubric, dim: Dimension, dev: Collection[int]) -> tuple[Example, ...]:
    """People's corrections of the judge on dev items, newest first (:meth:`human_examples`, every
    one there is, kept to dev items: a test item's answer is never shown)."""
    keep = set(dev)
    every = store.runs.human_examples(rubric.ref, dim.id, max(1, len(keep)) * 64)
    return tuple(e for e in every if e.get("item_key") in keep)


def build(names: Sequence[str], rubric: Rubric, dim: Dimension, model: str, examples: tuple[Example, ...],
          other_models: Sequence[str] = (), samples: int | None = None,
          rewritten: str | None = None, rewrite_error: str | None = None) -> list[Candidate]:
    """The candidates named, in order (``rewrite`` with the question proposed, or its error)."""
    out: list[Candidate] = []
    for name in names:
        if name == "current":
            out.append(Candidate(name, one_dimension(rubric, dim), model, examples=examples))
        elif name == "rewrite":
            out.append(Candidate(name, one_dimension(rubric, dim, prompt=rewritten or dim.prompt), model,
                                 examples=examples, error=None if rewritten else rewrite_error or "no proposal"))
        else:
            out.append(Candidate(name, one_dimension(rubric, dim, k=int(name[1:])), model, examples=examples))
    current = out[0]
    out += [Candidate(f"model:{m}", current.rubric, m, examples=examples) for m in other_models if m != model]
    if samples is not None:
        out.append(Candidate(f"samples:{samples}", current.rubric, model, samples, examples=examples))
    return out


REWRITE_SYSTEM = (
    "You improve the instructions an AI judge follows when it scores outputs against a rubric. "
    "People reviewed some outputs and disagreed with the judge. Propose a better question for the "
    "judge: one that makes it score as the people did, stated as a general rule, never naming or "
    "quoting these particular outputs. Reply with one JSON object and nothing else."
)
REWRITE_SCHEMA: dict[str, object] = {
    "type": "object", "properties": {"prompt": {"type": "string"}, "rationale": {"type": "string"}},
    "required": ["prompt", "rationale"], "additionalProperties": False}


@dataclass(frozen=True)
class Disagreement:
    """A dev correction as the rewrite's meta-prompt shows it."""

    output: str
    judge: float
    people: float
    reason: str | None


def _number(value: object, what: str) -> float:
    """A score of the store's as a float (the store hands out numbers; anything else is a bug)."""
    if isinstance(value, int | float):
        return float(value)
    raise TypeError(f"a correction's {what} is {value!r}, not a number")


def dev_disagreements(examples: Sequence[Example]) -> list[Disagreement]:
    """The dev corrections as disagreements, the largest first (a stable sort: ties keep the
    examples' order, newest first)."""
    shown = [Disagreement(str(e.get("output", "")), _number(e["judge_score"], "judge score"),
                          _number(e["human_score"], "human score"),
                          str(e["reason"]) if e.get("reason") else None) for e in examples]
    return sorted(shown, key=lambda d: -abs(d.judge - d.people))


def meta_prompt(dim: Dimension, disagreements: Sequence[Disagreement], sandbox: Sandbox | None = None) -> BuiltPrompt:
    """The prompt asking the judge model to rewrite the dimension's question from dev
    disagreements (each: the output, the judge's score, people's score and reason, all sandboxed)."""
    sandbox = sandbox or Sandbox()
    parts = [describe_dimension(dim), "## The judge's question now\n" + (dim.prompt or "(none: the definition alone)")]
    shown = []
    for n, d in enumerate(disagreements[:REWRITE_SHOWN], 1):
        shown.append(f"Case {n}: the judge scored {d.judge:g}; people scored {d.people:g}.\n"
                     f"{sandbox.wrap('OUTPUT', d.output)}\nPeople's reason:\n"
                     f"{sandbox.wrap('REASON', d.reason or 'no reason given')}")
    parts.append("## Where people disagreed with the judge\n" + ("\n\n".join(shown) or "(none)"))
    parts.append('## Answer\nReply with only this JSON object: {"prompt": "<the new question for the judge; '
                 'it may use {input} and {output}>", "rationale": "<what it changes and why>"}')
    return sandbox.finish(REWRITE_SYSTEM, "\n\n".join(parts), REWRITE_SCHEMA)


def read_proposal(answer: Mapping[str, object]) -> Proposal:
    """The proposal in the judge model's answer; a ``ValueError`` when it is not a usable one."""
    prompt = answer.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("the proposal has no 'prompt' text")
    if len(prompt) > REWRITE_MAX:
        raise ValueError(f"the proposed prompt is {len(prompt)} characters, over {REWRITE_MAX}")
    rationale = answer.get("rationale")
    return {"prompt": prompt.strip(), "rationale": rationale if isinstance(rationale, str) else ""}

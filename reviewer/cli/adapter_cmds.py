"""``rubricate rubric init``: a rubric drafted from another tool's results file; and reading
standard input (``-``) for the commands that take a file."""

from __future__ import annotations

import getpass
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from reviewer.cli import rubric_app
from reviewer.faults import regular_file
from reviewer.safetext import safe_line


@contextmanager
def input_file(file: Path) -> Iterator[tuple[Path, str | None]]:
    """``(path, name)`` to read ``file`` from: ``-`` is standard input, spooled to a temporary
    file (named ``-`` in messages; read as CSV when it does not start as JSON, a zip or Parquet
    does) and removed afterwards; any other path is checked to be a regular file and read where
    it is."""
    if str(file) != "-":
        regular_file(file)
        yield file, None
        return
    with tempfile.TemporaryDirectory(prefix="rubricate-stdin-") as tmp:
        spool = Path(tmp) / "stdin"
        with spool.open("wb") as fh:
            shutil.copyfileobj(sys.stdin.buffer, fh)
        with spool.open("rb") as fh:
            head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        if head and head[:1] not in (b"{", b"[") and head[:4] not in (b"PK\x03\x04", b"PAR1"):
            spool = spool.rename(spool.with_suffix(".csv"))  # a CSV header: read as the CSV it is
        yield spool, "-"


@rubric_app.command("init")
def rubric_init(
    source: Annotated[Path, typer.Option("--from", help="A results file of another tool (or - for standard input).")],
    out: Annotated[Path, typer.Option(help="Where to write the drafted rubric YAML.")],
    from_format: Annotated[str | None, typer.Option(
        "--from-format", help="The file's format (default: recognised from its shape).")] = None,
    rubric_id: Annotated[str | None, typer.Option("--id", help="The rubric's id (default: from the file's name).")] = None,
    owner: Annotated[str | None, typer.Option(help="Who answers for the rubric (default: your user name).")] = None,
    dimension: Annotated[list[str] | None, typer.Option(
        "--dimension", help="Draft only this dimension (repeat); needed past ten.")] = None,
    traces: Annotated[Path | None, typer.Option(
        help="With a Langfuse scores export: the traces export (for the item texts).")] = None,
) -> None:
    """Draft a rubric from a promptfoo, Inspect, JUDGE-BENCH, Langfuse, LangSmith or openai/evals file: its dimensions, scales, labels and
    the judge's prompts where the file carries them (inferred parts begin "Draft:"). The draft
    passes `rubric add` as written.

    Example: rubricate rubric init --from results.json --out support.yaml && rubricate rubric add support.yaml
    """
    from reviewer.errors import UserError
    from reviewer.io.adapters.base import slug
    from reviewer.services.importing import open_source
    from rubrics.draft import draft_rubric
    from rubrics.errors import RubricError

    if traces is not None:
        regular_file(traces)
    with input_file(source) as (path, name):
        opened = open_source(path, from_format, name, traces)
    shown = name or str(source)
    if opened.converted is None or opened.format == "rubricate":
        raise UserError(f"{shown}: not a file rubric init drafts from (promptfoo, Inspect, JUDGE-BENCH, Langfuse, LangSmith or openai/evals); "
                        "name its format with --from-format")
    converted = opened.converted
    rid = rubric_id or slug(Path(shown).stem if shown != "-" else converted.format, "imported")
    try:
        text = draft_rubric(list(converted.dimensions.values()), rid, owner or getpass.getuser(), Path(shown).name,
                            title=converted.title, picks=dimension or ())
    except RubricError as exc:
        raise UserError(str(exc)) from None
    out.write_text(text, encoding="utf-8")
    if opened.detected:
        typer.echo(safe_line(f"read {shown} as {opened.format} (recognised by its shape)"), err=True)
    typer.echo(safe_line(f"wrote {out}: rubric {rid}@1.0.0, {len(dimension or converted.dimensions)} "
                         "dimension(s); read the parts marked Draft, then: rubricate rubric add " + str(out)))

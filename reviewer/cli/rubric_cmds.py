"""``rubricate rubric ...``: validate, list, show, diff, import-flexeval (``add`` is in data_cmds)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reviewer.cli import rubric_app
from reviewer.faults import regular_file, say
from reviewer.safetext import safe_line, safe_text
from rubrics.schema import Rubric


def _load(ref_or_path: str) -> Rubric:
    """A rubric from a file path, or a bundled one by ``id[@version]``."""
    from rubrics.library import find_bundled, parse_ref
    from rubrics.loader import load_rubric_file

    if ref_or_path.endswith((".yaml", ".yml")) or Path(ref_or_path).exists():
        regular_file(ref_or_path)
        return load_rubric_file(ref_or_path)
    return find_bundled(*parse_ref(ref_or_path))


@rubric_app.command()
def validate(paths: Annotated[list[Path], typer.Argument(help="Rubric YAML files.")]) -> None:
    """Check rubric files against every save-time rule; one line per problem, exit 1 if any.

    Example: rubricate rubric validate rubrics/library/*.yaml
    """
    from reviewer.errors import UserError
    from rubrics.errors import RubricError
    from rubrics.loader import load_rubric_file

    failed = False
    for path in paths:
        try:
            regular_file(path)
            rubric = load_rubric_file(path)
        except (RubricError, UserError) as exc:
            for line in str(exc).splitlines():  # every problem of the file, one line each
                say(f"error: {line}")
            failed = True
            continue
        typer.echo(safe_line(f"ok {path} {rubric.ref}"))
    if failed:
        raise typer.Exit(1)


@rubric_app.command("list")
def list_cmd() -> None:
    """List the bundled rubrics.

    Example: rubricate rubric list
    """
    from rubrics.library import bundled

    for r in bundled():
        weighted = sum(1 for d in r.dimensions if d.weighted)
        typer.echo(safe_line(f"{r.ref:40} {weighted} weighted dimensions  {r.name}"))


@rubric_app.command()
def show(rubric: Annotated[str, typer.Argument(help="ID[@VERSION] of a bundled rubric, or a file.")]) -> None:
    """Show dimensions, methods, weights, thresholds and the anchors for every level.

    Example: rubricate rubric show general-quality
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    r = _load(rubric)
    console = Console()
    console.print(Text.assemble(safe_text(r.name, "bold", newlines=False),
                                safe_text(f"  {r.ref}  owner {r.owner or '—'}  hash {r.content_hash[:12]}")))
    if r.description:
        console.print(safe_text(r.description))
    t = Table(show_lines=True)
    for col in ("dimension", "method", "weight", "pass ≥", "scale", "anchors"):
        t.add_column(col)
    for d in r.dimensions:
        anchors = "\n".join(
            f"{a.low:g}{'' if a.low == a.high else f'–{a.high:g}'}: {a.label}" for a in d.anchors)
        scale = f"{d.scale.min:g}–{d.scale.max:g}" + (f" {list(d.scale.levels)}" if d.scale.levels else "")
        t.add_row(Text.assemble(safe_text(d.id + "\n"), safe_text(d.description, "dim")), safe_text(d.method),
                  f"{d.weight:.2f}", f"{d.threshold:g}", safe_text(scale),
                  safe_text(anchors) if anchors else Text("(computed)", style="dim"))
    console.print(t)
    gates = ", ".join(r.safety_gates) or "none"
    console.print(safe_text(f"safety gates: {gates} (cap {r.safety_cap:g}); bands: "
                            + ", ".join(f"{b.label} ≥ {b.min:g}" for b in r.bands)))


@rubric_app.command()
def diff(
    old: Annotated[str, typer.Argument(help="The older version (file or ID@VERSION).")],
    new: Annotated[str, typer.Argument(help="The newer version (file or ID@VERSION).")],
) -> None:
    """What changed between two versions, the bump it requires, and whether NEW's number is enough.

    Example: rubricate rubric diff general-quality-1.0.0.yaml general-quality-1.1.0.yaml
    """
    from rubrics.versioning import check_bump
    from rubrics.versioning import diff as compute

    a, b = _load(old), _load(new)
    d = compute(a, b)
    for c in d.changes:
        typer.echo(safe_line(f"{c.bump:6} {c.path}: {c.what}"))
    typer.echo(f"required bump: {d.required}")
    problem = check_bump(a, b)
    if problem:
        # An understated bump is the finding this command exists for: say it and fail, so a
        # script (or CI) that runs ``rubric diff`` before ``rubric add`` stops here.
        typer.echo(safe_line(f"error: {problem}: raise the version number"), err=True)
        raise typer.Exit(1)
    typer.echo(safe_line(f"version {a.version} → {b.version} is enough"))


@rubric_app.command("import-flexeval")
def import_flexeval(
    file: Annotated[Path, typer.Argument(help="FlexEval rubric YAML: name → {prompt, choice_scores}.")],
    rubric_id: Annotated[str, typer.Option("--id", help="Id of the rubric to write.")] = "flexeval-import",
    out: Annotated[Path | None, typer.Option(help="Write the canonical YAML here (default: stdout).")] = None,
) -> None:
    """Turn a FlexEval rubric file into rubricate's canonical YAML (validated before writing).

    Example: rubricate rubric import-flexeval rubric_metrics.yaml --id tutor-checks --out tutor.yaml
    """
    from rubrics.flexeval import import_flexeval as convert

    regular_file(file)
    text = convert(file.read_text(encoding="utf-8"), str(file), rubric_id)
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}")
    else:
        typer.echo(text, nl=False)

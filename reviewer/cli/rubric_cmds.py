"""``rubricate rubric ...``: validate, list, show, diff, import-flexeval (``add`` is in data_cmds)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reviewer.cli import DbOption, rubric_app
from reviewer.cli.output import FormatOption, check_format, emit_json
from reviewer.faults import regular_file, say
from reviewer.safetext import safe_line
from rubrics.schema import Rubric


def _is_path(ref_or_path: str) -> bool:
    """Whether a rubric argument names a file rather than ``id[@version]``."""
    return ref_or_path.endswith((".yaml", ".yml")) or Path(ref_or_path).exists()


def _load(ref_or_path: str) -> Rubric:
    """A rubric from a file path, or a bundled one by ``id[@version]``."""
    from rubrics.library import find_bundled, parse_ref
    from rubrics.loader import load_rubric_file

    if _is_path(ref_or_path):
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
def list_cmd(db: DbOption = None, fmt: FormatOption = "table") -> None:
    """List the bundled rubrics; with --db, the store's registered versions beside them, each
    marked bundled, registered or both.

    Example: rubricate rubric list --db team.db --format json
    """
    from rubrics.library import bundled

    check_format(fmt)
    found: dict[str, tuple[Rubric, set[str]]] = {r.ref: (r, {"bundled"}) for r in bundled()}
    if db is not None:
        for rubric in _registered(db):
            found.setdefault(rubric.ref, (rubric, set()))[1].add("registered")
    rows = [found[ref] for ref in sorted(found)]
    if fmt == "json":
        emit_json([{"ref": r.ref, "id": r.id, "version": r.version, "name": r.name,
                    "dimensions": len(r.dimensions), "weighted_dimensions": sum(1 for d in r.dimensions if d.weighted),
                    "content_hash": r.content_hash, "bundled": "bundled" in where,
                    "registered": "registered" in where} for r, where in rows])
        return
    for r, where in rows:
        weighted = sum(1 for d in r.dimensions if d.weighted)
        mark = f"  ({', '.join(sorted(where))})" if db is not None else ""
        typer.echo(safe_line(f"{r.ref:40} {weighted} weighted dimensions  {r.name}{mark}"))


def _registered(db: str) -> list[Rubric]:
    """Every rubric version registered in the store at ``db`` (which must exist: listing never
    creates a database)."""
    from reviewer.store import open_store

    store = open_store(db, existing=True)
    return [store.rubrics.get_rubric(f"{rid}@{version}") for rid, version, _ in store.rubrics.list_rubrics()]


@rubric_app.command()
def show(
    rubric: Annotated[str, typer.Argument(help="ID[@VERSION] of a bundled or (with --db) registered rubric, or a file.")],
    db: DbOption = None,
    fmt: FormatOption = "table",
) -> None:
    """Show everything that decides a score: per dimension the method, weight, threshold, scale
    and anchors, prompt, rule, choices, ceilings, conditions and turn rule; then the judge's
    settings, the safety gates and what each catches, the safety cap, the bands and the headline.
    With --db, a version registered in the store is shown as registered (else the bundled one).

    Example: rubricate rubric show general-quality

    Example: rubricate rubric show team-rubric@1.2.0 --db team.db --format json
    """
    check_format(fmt)
    found, origin = _find(rubric, db)
    if fmt == "json":
        from reviewer.cli.rubric_show import rubric_data

        emit_json({"ref": found.ref, "from": origin, "content_hash": found.content_hash, **rubric_data(found)})
        return
    from rich.console import Console

    from reviewer.cli.rubric_show import show_rubric

    show_rubric(found, Console())


def _find(ref_or_path: str, db: str | None) -> tuple[Rubric, str]:
    """The rubric ``rubric show`` means, and where it came from (file, registered, bundled): a
    file path is the file; with ``db``, the store's registered version (the highest, without
    one), else the bundled one."""
    from reviewer.errors import UserError
    from rubrics.errors import RubricError
    from rubrics.library import parse_ref

    if _is_path(ref_or_path):
        return _load(ref_or_path), "file"
    if db is None:
        return _load(ref_or_path), "bundled"
    from reviewer.store import open_store

    rid, version = parse_ref(ref_or_path)
    store = open_store(db, existing=True)
    stored = [(i, v) for i, v, _ in store.rubrics.list_rubrics() if i == rid and (version is None or v == version)]
    if stored:  # get_rubric reads the registered row (the highest version, for a bare id)
        return store.rubrics.get_rubric(ref_or_path), "registered"
    try:
        return _load(ref_or_path), "bundled"
    except RubricError:
        known = ", ".join(sorted({f"{i}@{v}" for i, v, _ in store.rubrics.list_rubrics()})) or "none"
        raise UserError(f"no rubric {ref_or_path} registered in {db} or bundled; registered: {known}; "
                        "register it with `rubricate rubric add FILE`") from None


@rubric_app.command()
def dimensions(fmt: FormatOption = "table") -> None:
    """The Scoring Rubrics wiki's ten reference dimensions with their default method, weight and
    threshold; a rubric dimension says ``use: ID`` to inherit them (and overrides any key).

    Example: rubricate rubric dimensions --format json
    """
    check_format(fmt)
    if fmt == "json":
        from rubrics.catalogue import REFERENCE

        emit_json(list(REFERENCE))  # each a dataclass: written as the object of its fields
        return
    from rich.console import Console

    from reviewer.cli.rubric_show import dimensions_table

    Console().print(dimensions_table())


@rubric_app.command()
def diff(
    old: Annotated[str, typer.Argument(help="The older version (file or ID@VERSION).")],
    new: Annotated[str, typer.Argument(help="The newer version (file or ID@VERSION).")],
    fmt: FormatOption = "table",
    db: DbOption = None,
) -> None:
    """What changed between two versions, the bump it requires, and whether NEW's number is enough.
    With --db, an ID@VERSION registered in the store is that version (as with ``rubric show``).

    Example: rubricate rubric diff general-quality-1.0.0.yaml general-quality-1.1.0.yaml

    Example: rubricate rubric diff team-rubric@1.2.0 team-rubric@1.3.0 --db team.db
    """
    from rubrics.versioning import check_bump
    from rubrics.versioning import diff as compute

    check_format(fmt)
    a, b = _find(old, db)[0], _find(new, db)[0]
    d = compute(a, b)
    problem = check_bump(a, b)
    if fmt == "json":
        emit_json({"old": a.ref, "new": b.ref, "required": d.required, "enough": problem is None,
                   "problem": problem, "changes": [{"bump": c.bump, "path": c.path, "what": c.what} for c in d.changes]})
        if problem:  # the same exit as the table's: a script stops on an understated bump
            raise typer.Exit(1)
        return
    for c in d.changes:
        typer.echo(safe_line(f"{c.bump:6} {c.path}: {c.what}"))
    typer.echo(f"required bump: {d.required}")
    if problem:
        # An understated bump is the finding this command exists for: say it and fail, so a
        # script (or CI) that runs ``rubric diff`` before ``rubric add`` stops here.
        typer.echo(safe_line(f"error: {problem}: raise the version number"), err=True)
        raise typer.Exit(1)
    typer.echo(safe_line(f"version {a.version} → {b.version} is enough"))


@rubric_app.command("import-flexeval")
def import_flexeval(
    file: Annotated[Path, typer.Argument(
        help="A FlexEval rubric file (name → {prompt, choice_scores}) or an evals.yaml.")],
    rubrics: Annotated[list[Path] | None, typer.Option(
        "--rubrics", help="With an evals.yaml: the rubric file(s) its rubric metrics name (repeat).")] = None,
    eval_name: Annotated[str | None, typer.Option(
        "--eval", help="With an evals.yaml holding several evals: which one.")] = None,
    picks: Annotated[list[str] | None, typer.Option(
        "--rubric", help="With a rubric file: import only this rubric (repeat); needed past ten rubrics.")] = None,
    rubric_id: Annotated[str, typer.Option("--id", help="Id of the rubric to write.")] = "flexeval-import",
    owner: Annotated[str | None, typer.Option(
        help="Who answers for the rubric (required: FlexEval files name no owner).")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Write the canonical YAML here (default: stdout); with an evals.yaml and no --eval, "
             "an existing directory: each eval to DIR/ID.yaml, its id the eval's name as a slug.")] = None,
) -> None:
    """Turn FlexEval rubrics into rubricate's canonical YAML (validated before writing).

    From an evals.yaml, each rubric metric of the eval becomes a dimension with its metric_level
    and its depends_on conditions (is_role, other rubrics, tool-call counts); with --out DIR and
    no --eval every eval is imported, a bad one refused in its own line. Errors name the source
    file's line.

    Example: rubricate rubric import-flexeval rubric_metrics.yaml --id tutor-checks --owner evals-team --out tutor.yaml

    Example: rubricate rubric import-flexeval rubric_metrics.yaml --rubric is_correct_plot --rubric plot_bounds_are_reasonable --owner evals-team

    Example: rubricate rubric import-flexeval evals.yaml --rubrics rubric_metrics.yaml --eval plots --owner evals-team --out plots.yaml

    Example: rubricate rubric import-flexeval evals.yaml --rubrics rubric_metrics.yaml --owner evals-team --out rubrics/
    """
    from reviewer.errors import UserError
    from rubrics.flexeval import import_flexeval as convert
    from rubrics.flexeval import import_flexeval_evals, is_evals_file

    text = _read(file)
    if owner is None or not owner.strip():
        raise UserError("import-flexeval needs --owner NAME: every rubric has an owner, the person or team "
                        "who answers for it, and a FlexEval file names none")
    if is_evals_file(text, str(file)):
        if picks:
            raise UserError(f"{file}: --rubric picks rubrics from a rubric file; an evals.yaml's eval "
                            "names its own (pick the eval with --eval)")
        sources = [(_read(p), str(p)) for p in rubrics or []]
        if eval_name is None and out is not None and out.is_dir():
            _import_each(text, str(file), sources, owner, out)
            return
        canonical = import_flexeval_evals(text, str(file), sources, eval_name, rubric_id, owner=owner)
    else:
        canonical = convert(text, str(file), rubric_id, owner=owner, picks=picks or ())
    if out:
        out.write_text(canonical, encoding="utf-8")
        typer.echo(safe_line(f"wrote {out}"))
    else:
        typer.echo(canonical, nl=False)


def _import_each(text: str, source: str, sources: list[tuple[str, str]], owner: str, out: Path) -> None:
    """Each eval of an evals.yaml to its own file; an eval that cannot be imported is refused in
    its own line while the others are written, and the exit is 1 if any was refused."""
    from rubrics.flexeval import import_flexeval_each

    refused = 0
    for name, rubric_id, result in import_flexeval_each(text, source, sources, owner=owner):
        if isinstance(result, str):
            target = out / f"{rubric_id}.yaml"  # the slug, never the eval's own text, names the file
            target.write_text(result, encoding="utf-8")
            typer.echo(safe_line(f"wrote {target}"))
        else:
            refused += 1
            say(safe_line(f"{result} (eval {name!r} not imported)"))
    if refused:
        raise typer.Exit(1)


def _read(path: Path) -> str:
    from rubrics.errors import RubricError

    regular_file(path)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricError(str(path), None, "unreadable", f"{exc}; check the path") from None

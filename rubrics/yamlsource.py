"""Safe YAML reading that remembers where every key was, for ``FILE:LINE`` messages.

Aliases are refused outright (a "billion laughs" file expands aliases into gigabytes), files over
1 MB are refused before parsing, and syntax errors name their line and column. Explicit tags
(``!!int abc``, ``!!python/object``, ``!custom``) are refused: a rubric is plain data. A key that
appears twice in one mapping is a problem (plain ``yaml.safe_load`` silently keeps the last), and
so is a key that YAML reads as something other than text (``yes:`` is the boolean true, ``~:``
is null); those are collected in :attr:`Located.problems` so every one is reported at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from rubrics.errors import RubricError

MAX_BYTES = 1_000_000

Path_ = tuple[str | int, ...]


class _NoAliasLoader(yaml.SafeLoader):
    """A safe loader that refuses aliases (``*name``) instead of expanding them."""

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]  # unannotated in types-PyYAML
            raise RubricError(
                self.name, event.start_mark.line + 1, "yaml-alias",
                "YAML aliases (*name) are not allowed in a rubric; write the value out",
            )
        event = self.peek_event()  # type: ignore[no-untyped-call]  # unannotated in types-PyYAML
        if isinstance(event, (ScalarEvent, CollectionStartEvent)) and event.tag is not None:
            raise RubricError(
                self.name, event.start_mark.line + 1 if event.start_mark else None, "yaml-tag",
                f"explicit YAML tags ({event.tag}) are not allowed in a rubric; remove the tag "
                "and write the plain value",
            )
        return super().compose_node(parent, index)


@dataclass
class Located:
    """Parsed YAML data plus the line of every key path."""

    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)
    #: Problems found while reading that do not stop the parse (duplicate keys, odd keys).
    problems: list[RubricError] = field(default_factory=list)

    def line(self, *path: str | int) -> int | None:
        """The line of ``path``, or of its nearest ancestor that has one."""
        p: Path_ = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.lines.get((), 1)


def _convert(loader: _NoAliasLoader, node: Node, path: Path_, lines: dict[Path_, int],
             problems: list[RubricError]) -> Any:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, ScalarNode):
                raise RubricError(loader.name, line, "wrong-type", "a key must be a plain word")
            key = loader.construct_object(key_node)
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                problems.append(RubricError(
                    loader.name, line, "wrong-type",
                    f"the key {key_node.value!r} reads as {type(key).__name__}, not text; quote it"))
                continue
            if key in out or str(key) in out:
                problems.append(RubricError(
                    loader.name, line, "duplicate-key",
                    f"key {key!r} appears twice in this mapping (first on line {lines[(*path, str(key))]}); "
                    "keep one"))
                continue
            sub = (*path, str(key))
            lines[sub] = line
            out[key] = _convert(loader, value_node, sub, lines, problems)
        return out
    if isinstance(node, SequenceNode):
        return [_convert(loader, child, (*path, i), lines, problems) for i, child in enumerate(node.value)]
    assert isinstance(node, ScalarNode)
    return loader.construct_object(node)


def parse_yaml(text: str, source: str) -> Located:
    """Parse one YAML document, keeping key lines; every failure is a :class:`RubricError`."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise RubricError(source, None, "file-too-large",
                          f"a rubric file must be under {MAX_BYTES // 1_000_000} MB; this one is not")
    if not text.strip():
        raise RubricError(source, 1, "empty-file", "the file is empty; a rubric needs id, version and dimensions")
    try:
        loader = _NoAliasLoader(text)  # its reader refuses a NUL or another unprintable character here
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, max(exc.position, 0)) + 1
        raise RubricError(source, line, "yaml-syntax",
                          f"column {exc.position - text.rfind(chr(10), 0, exc.position)}: the character "
                          f"#x{exc.character if isinstance(exc.character, int) else ord(exc.character):04x} "
                          "is not allowed in YAML (a NUL byte or another control character); remove it") from None
    loader.name = source
    try:
        node = loader.get_single_node()
        if node is None:
            raise RubricError(source, 1, "empty-file", "the file holds no YAML document")
        lines: dict[Path_, int] = {}
        problems: list[RubricError] = []
        data = _convert(loader, node, (), lines, problems)
    except RubricError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"column {mark.column + 1}: " if mark is not None else ""
        problem = (exc.problem or exc.context or "syntax error").strip()
        raise RubricError(source, mark.line + 1 if mark else None, "yaml-syntax",
                          f"{where}{problem}; fix the YAML syntax") from None
    except yaml.YAMLError as exc:
        raise RubricError(source, None, "yaml-syntax", f"{exc}; fix the YAML syntax") from None
    except RecursionError:
        raise RubricError(source, None, "yaml-syntax", "nesting is too deep for a rubric") from None
    except (ValueError, TypeError, OverflowError) as exc:  # a scalar YAML cannot build (e.g. a bad date)
        raise RubricError(source, None, "yaml-syntax", f"{exc}; write a plain value") from None
    finally:
        loader.dispose()
    return Located(data, lines, problems)

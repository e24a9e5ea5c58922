"""Data walks one way: stores → readers → record (+ the indexes it keeps) → finding, keeping, mining → the
table of operations → surfaces. Checked on the imports of the source itself, so an arrow pointing back
fails here before it grows into a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import total_recall

PACKAGE = Path(total_recall.__file__).parent

# A layer (a folder or a module of the package) and the layers it must never import.
NEVER = {
    "readers/": ("record/", "indexes/", "find/", "keeping/", "mining/", "ops/", "surfaces/"),
    "indexes/": ("record/", "find/", "keeping/", "mining/", "ops/", "surfaces/"),
    "record/": ("find/", "keeping/", "mining/", "ops/", "surfaces/"),
    "find/": ("keeping/", "mining/", "ops/", "surfaces/"),
    "keeping/": ("ops/", "surfaces/"),
    "mining/": ("ops/", "surfaces/"),
    "llm/": ("ops/", "surfaces/"),
    "ops/": ("surfaces/",),
}


def imports_of(path: Path) -> set[str]:
    """The total_recall modules `path` imports, anywhere in it, as paths relative to the package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.startswith("total_recall."):
                found.add(name.removeprefix("total_recall.").replace(".", "/"))
    return found


@pytest.mark.parametrize("layer", sorted(NEVER))
def test_a_layer_never_imports_the_layers_built_on_it(layer: str) -> None:
    wrong = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in imports_of(path):
            if any(name.startswith(bad.rstrip("/")) for bad in NEVER[layer]):
                wrong.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert wrong == []


def test_migrations_call_no_code_that_may_change_later() -> None:
    """A migration is frozen: it imports nothing of the package but its errors and the frozen SQL texts of
    the record and of the later layers, which import nothing at all."""
    allowed = {"errors", "errors/RecordError", "errors/AppendOnlyError", "record/layer_schema",
               "record/record_schema"}
    used = imports_of(PACKAGE / "record" / "migrations.py")
    schemas = ("record/layer_schema/", "record/record_schema/")
    assert {n for n in used if not n.startswith(schemas)} <= allowed
    assert imports_of(PACKAGE / "record" / "layer_schema.py") == set()
    assert imports_of(PACKAGE / "record" / "record_schema.py") == set()

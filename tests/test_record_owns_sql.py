"""The record owns its SQL, and the core never reaches up into a surface: checked on the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

import total_recall

PACKAGE = Path(total_recall.__file__).parent

# Where SQL over the record may be written: the record, and the indexes it keeps in its own transaction.
# readers/opencode.py and opencode_db.py query OpenCode's own database (a harness store), not the record.
OWNERS = ("record/", "indexes/", "readers/opencode.py", "readers/opencode_db.py")
# What reaching into the record looks like: its connection, or a statement run on anything.
CONNECTION = "db"
STATEMENTS = ("execute", "executemany", "executescript", "create_function")
# The core: everything a surface is built on (ops/, between the two, is left to its own issue).
CORE = ("model.py", "errors.py", "config.py", "syncing.py", "erasure.py", "record/", "indexes/", "find/",
        "keeping/", "mining/", "llm/", "readers/")


def modules() -> list[tuple[str, ast.Module]]:
    return [(p.relative_to(PACKAGE).as_posix(), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(PACKAGE.rglob("*.py"))]


def queries_of(tree: ast.Module) -> list[str]:
    """Each place the module touches a connection or runs a statement, as `line: .name`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == CONNECTION:
            found.append(f"{node.lineno}: .{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in STATEMENTS):
            found.append(f"{node.lineno}: .{node.func.attr}(")
    return found


def test_only_the_record_and_its_indexes_query_the_record() -> None:
    strays = {path: found for path, tree in modules()
              if not path.startswith(OWNERS) and (found := queries_of(tree))}
    assert strays == {}, "query the record through record/ (a query module or a Record method) instead"


def test_no_core_module_imports_a_surface() -> None:
    reaching = {}
    for path, tree in modules():
        if not path.startswith(CORE):
            continue
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        if surfaces := [n for n in names if n.startswith("total_recall.surfaces")]:
            reaching[path] = surfaces
    assert reaching == {}

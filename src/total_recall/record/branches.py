"""Which entries of a tree-shaped session are on its active branch, and which on side branches.

Claude Code and pi write a tree (each line names its parent); a rewind or an edit starts a sibling
branch. The record keeps every branch; the active one is derived when read, never stored, so a later
rewind can move it without touching a recorded entry.
"""

from __future__ import annotations

from collections.abc import Iterable


def active_branch(nodes: Iterable[tuple[str | None, str | None, bool]]) -> set[str]:
    """The ids on the chain from the latest leaf back to its root.

    `nodes` are (native_id, native_parent, sidechain) in stream order. The latest leaf is the last
    node that is not on a sidechain (or the last node at all, in a file that is all sidechain).
    """
    parent: dict[str, str | None] = {}
    last_main: str | None = None
    last_any: str | None = None
    for native_id, native_parent, sidechain in nodes:
        if native_id is None:
            continue
        parent.setdefault(native_id, native_parent)
        last_any = native_id
        if not sidechain:
            last_main = native_id
    active: set[str] = set()
    node = last_main or last_any
    while node is not None and node not in active:
        active.add(node)
        node = parent.get(node)
    return active

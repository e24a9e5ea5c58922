"""Which entries of a tree-shaped session are on its active branch, and which on side branches.

Claude Code and pi write a tree (each line names its parent); a rewind or an edit starts a sibling
branch. The record keeps every branch; the active one is derived when read, never stored, so a later
rewind can move it without touching a recorded entry.
"""

from __future__ import annotations

from collections.abc import Iterable


def active_branch(nodes: Iterable[tuple[str | None, str | None, bool]]) -> set[str]:
    """The native ids on the active branch of a tree-shaped session (Claude Code, pi).

    `nodes` are (native_id, native_parent, sidechain) in file order. The active branch is the
    chain from the latest non-sidechain leaf back to its root; a node whose parent is unknown ends
    the walk. A tree with only sidechain nodes (a subagent file) uses its latest leaf of any kind.
    """
    parents: dict[str, str | None] = {}
    order: list[tuple[str, bool]] = []
    for nid, parent, side in nodes:
        if nid is None:
            continue
        parents.setdefault(nid, parent)
        order.append((nid, side))
    main = [nid for nid, side in order if not side]
    candidates = main or [nid for nid, _ in order]
    # Sidechain children (a /btw question off the tip) do not stop a main node from being a leaf.
    with_children = {parents[n] for n in candidates if parents[n] is not None}
    leaf = next((n for n in reversed(candidates) if n not in with_children), None)
    if leaf is None and candidates:
        leaf = candidates[-1]  # every node has a child: a cycle; start from the latest
    active: set[str] = set()
    node = leaf
    while node is not None and node in parents and node not in active:
        active.add(node)
        node = parents[node]
    return active

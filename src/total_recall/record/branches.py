"""Which entries of a tree-shaped session are on its active branch, and which on side branches.

Claude Code and pi write a tree (each line names its parent); a rewind or an edit starts a sibling
branch. The record keeps every branch; the active one is derived when read, never stored, so a later
rewind can move it without touching a recorded entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class Link(NamedTuple):
    """One entry's place in the tree, with who wrote it and what it is (they decide whether it may start a
    branch of its own)."""

    native_id: str | None
    parent: str | None
    sidechain: bool
    author: str = "owner"
    kind: str = "message"


def active_branch(nodes: Iterable[Link]) -> set[str]:
    """The native ids on the active branch of a tree-shaped session (Claude Code, pi).

    `nodes` are the entries in file order. The active branch is the chain from the latest non-sidechain
    leaf back to its root, and what hangs from it attached: Claude Code parents each result of parallel
    tool calls on its own call, and a call's next block on the block before, so every call and result but
    the last ends a short chain of its own, which is no rewind. Attached are a tool's result, the
    harness's bookkeeping (progress, hooks) and an agent's block whose parent, past bookkeeping, is the
    agent's or a tool's (the next block of one reply, which Claude Code may hang on a result that came in
    meanwhile); an owner's prompt, a harness message or a reply to a prompt starts a branch of its own (a
    rewind, an edit, a retry of the reply).
    A node whose parent the file does not hold continues from the main node before it in the file (a
    compaction boundary whose `logicalParentUuid` names a line that was never written); the first node
    ends the walk there. A tree with only sidechain nodes (a subagent file) uses its latest leaf of any
    kind.
    """
    parents: dict[str, str | None] = {}
    authors: dict[str, set[str]] = {}
    kinds: dict[str, set[str]] = {}
    order: list[tuple[str, bool]] = []
    for nid, parent, side, author, kind in nodes:
        if nid is None:
            continue
        parents.setdefault(nid, parent)
        authors.setdefault(nid, set()).add(author)
        kinds.setdefault(nid, set()).add(kind)
        order.append((nid, side))

    def above(n: str) -> set[str]:
        """Who wrote the nearest ancestor of `n` that is not bookkeeping (progress lines come between the
        blocks of one reply)."""
        parent, steps = parents[n], 0
        while parent in kinds and kinds[parent] == {"meta"} and steps < len(parents):
            parent, steps = parents[parent], steps + 1
        return authors.get(parent, set()) if parent is not None else set()

    def attached(n: str) -> bool:
        return (authors[n] == {"tool"} or kinds[n] == {"meta"}
                or (authors[n] == {"agent"} and above(n) in ({"agent"}, {"tool"})))

    main = [nid for nid, side in order if not side]
    candidates = main or [nid for nid, _ in order]
    # Sidechain children (a /btw question off the tip) do not stop a main node from being a leaf.
    with_children = {parents[n] for n in candidates if parents[n] is not None}
    leaf = next((n for n in reversed(candidates) if n not in with_children), None)
    if leaf is None and candidates:
        leaf = candidates[-1]  # every node has a child: a cycle; start from the latest
    earlier = list(dict.fromkeys(candidates))  # each node once, at its first place
    place = {n: i for i, n in enumerate(earlier)}
    active: set[str] = set()
    node = leaf
    while node is not None and node not in active:
        active.add(node)
        parent = parents.get(node)
        if parent is not None and parent not in parents and place.get(node, 0) > 0:
            parent = earlier[place[node] - 1]  # a parent the file does not hold: the line before it
        node = parent if parent in parents else None
    children: dict[str, list[str]] = {}
    for n in earlier:
        parent = parents[n]
        if parent is not None and attached(n):
            children.setdefault(parent, []).append(n)
    waiting = list(active)
    while waiting:
        for child in children.get(waiting.pop(), ()):
            if child not in active:
                active.add(child)
                waiting.append(child)
    return active

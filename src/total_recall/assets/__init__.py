"""Instant Recall (seed 001, issue 18): an index of what the owner owns, and a push of up to five pointers
before every turn.

`rebuild` makes the index from the record and the harnesses' config roots; `assets` lists it; `push` gives
the pointers for an owner's message; `search_assets` is the same search without the push's cap; `mute` and
`unmute` keep an asset out of pushes until lifted. See `eligibility` for what every route may show.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

# name → the module that defines it: imported on first use, so the per-prompt hook, which pushes, never
# loads the rebuild side (discovery, mining).
_NAMES = {
    **dict.fromkeys(("ASSET_KINDS", "Asset", "AssetKind", "AssetReport", "Key", "Keys", "Pointer", "Push",
                     "Setup"), "total_recall.assets.asset"),
    **dict.fromkeys(("assets", "mute", "muted", "rebuild", "unmute"), "total_recall.assets.index"),
    **dict.fromkeys(("push", "search_assets"), "total_recall.assets.pointers"),
}

if TYPE_CHECKING:
    from total_recall.assets.asset import (
        ASSET_KINDS,
        Asset,
        AssetKind,
        AssetReport,
        Key,
        Keys,
        Pointer,
        Push,
        Setup,
    )
    from total_recall.assets.index import assets, mute, muted, rebuild, unmute
    from total_recall.assets.pointers import push, search_assets


def __getattr__(name: str) -> Any:
    if (module := _NAMES.get(name)) is None:
        raise AttributeError(f"module 'total_recall.assets' has no attribute {name!r}")
    return getattr(import_module(module), name)


__all__ = [
    "ASSET_KINDS",
    "Asset",
    "AssetKind",
    "AssetReport",
    "Key",
    "Keys",
    "Pointer",
    "Push",
    "Setup",
    "assets",
    "mute",
    "muted",
    "push",
    "rebuild",
    "search_assets",
    "unmute",
]

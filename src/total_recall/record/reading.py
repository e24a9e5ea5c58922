"""Range reads: the entries at an address, exactly, with their branch when the session is a tree."""

from __future__ import annotations

import dataclasses

from total_recall.model import Address, Entry
from total_recall.record.branches import active_branch
from total_recall.record.database import Record


def read(record: Record, address: Address | str) -> list[Entry]:
    """The entries at `address` as recorded; erased ones come back as tombstones.

    Raises:
        AddressError: the address is malformed or names nothing the record holds.
    """
    addr = Address.parse(address) if isinstance(address, str) else address
    entries = record.entries(addr)
    if not any(e.native_parent for e in entries):
        # A part of a session may hold no entry naming a parent while the session is still a tree: ask
        # the session then, so a page reads each entry's branch as the whole address does.
        if addr.first is None or not any(e.native_id for e in entries):
            return entries
        links = list(record.tree_links(addr.session))
        if not any(link.parent for link in links):
            return entries
    else:
        links = list(record.tree_links(addr.session))
    active = active_branch(links)
    return [
        dataclasses.replace(e, branch=None if e.native_id is None else
                            ("active" if e.native_id in active else "side"))
        for e in entries
    ]

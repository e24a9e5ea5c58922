"""Keeping (issue 4): compaction that leaves verified markers instead of summaries.

`tokens` estimates, `tail` finds the verbatim tail of whole exchanges, `marker` builds and stores markers
from the record (with `items` finding decisions, failures and open items), `verify` refuses any marker the
record cannot back, `receipts` logs every compaction decision, `cues` keeps the agent's recall cues. The
window model and its controllers (runtime, harness hooks, provider API) build on those.
"""

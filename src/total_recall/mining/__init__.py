"""Log mining over the record: the scope contract, bounded envelopes, flood control and the seed-004 tools."""

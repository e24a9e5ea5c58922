"""Finding in the record: a text index, an exact-string index, fused search where every hit is an address."""

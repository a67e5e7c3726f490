"""Column values of row images: per-type codecs, row images, MySQL binary JSON, and their
JSON-safe forms both ways (:mod:`.forms`)."""

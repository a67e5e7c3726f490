"""Column values of row images: per-type codecs, row images, MySQL binary JSON."""

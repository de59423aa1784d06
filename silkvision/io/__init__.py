"""File input/output: atomic writes, mask export, scores."""

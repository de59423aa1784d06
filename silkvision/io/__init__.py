"""File input/output: atomic writes, the files of an export (masks, scores, video, manifest, checkpoint)."""

"""Command-line interface (``silkvision COMMAND``)."""

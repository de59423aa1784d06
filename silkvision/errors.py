"""User-facing errors.

Every error a user can cause (bad path, bad config value, corrupt file, lost camera) is raised as a
:class:`SilkvisionError` subclass whose message is ONE line naming the file/key/value and what was
expected. The command line prints ``silkvision: error: <message>`` and exits with status 2; it never
shows a traceback for these.
"""

from __future__ import annotations


class SilkvisionError(Exception):
    """Base class of the errors a user can cause; ``str(err)`` is a one-line message."""

    exit_code = 2


class ConfigError(SilkvisionError, ValueError):
    """A configuration key, type or value is not allowed."""


class SourceError(SilkvisionError):
    """A capture source cannot be opened or read (missing path, corrupt frame, lost camera)."""


class DataError(SilkvisionError, ValueError):
    """Input data (ground truth, masks, data sets) is inconsistent or malformed."""


class ExportError(SilkvisionError):
    """An export cannot proceed (output folder in use, disk errors)."""


class ExportMismatchError(ExportError):
    """The output folder holds an export made from another source or with other settings."""

"""Batch export of foreground masks (the engine of ``silkvision export``), resumable.

Output folder layout (CDnet "results" naming)::

    DIR/bin%06d.png        0/255 uint8 mask of input frame %06d (same number as the input frame)
    DIR/scores%06d.npz     optional: member "scores", HxW float16 scores f(x) of that frame
                           (lower = more novel; compressed; SILK/NORMA only)
    DIR/masks.mkv          optional: all masks as a lossless FFV1 grey video (masks.avi with
                           PNG or HuffYUV frames when this OpenCV cannot write FFV1)
    DIR/config.yaml        the effective configuration (export.overwrite written as false,
                           export.pipeline as its default)
    DIR/export.json        manifest: source and its fingerprint, algorithm, the settings that shape
                           the output, status
    DIR/checkpoint.npz     only while unfinished: detector state after frame "index"

The files are written by :mod:`silkvision.io.writers` (masks, scores, video),
:mod:`silkvision.io.manifest` (``export.json``) and :mod:`silkvision.io.checkpoint`
(``checkpoint.npz``). This package runs the export: :mod:`~silkvision.export.engine`
(:func:`export_masks`) takes the folder (:mod:`~silkvision.export.folder`: its lock, which files
are ours), decides what a resume keeps (:mod:`~silkvision.export.plan`), runs the frames
(:mod:`~silkvision.export.loop`) and finishes or leaves the run resumable
(:mod:`~silkvision.export.finish`).

Every file is written atomically (temporary file + rename), so a killed export leaves only complete
files. Re-running the same export resumes: the manifest must match (otherwise a one-line
:class:`~silkvision.errors.ExportMismatchError` names the first setting that differs, or says that
the source's files changed: see :func:`~silkvision.io.manifest.source_fingerprint`), the detector
is restored from ``checkpoint.npz`` (saved every ``export.checkpoint_every`` frames and on
SIGINT/SIGTERM) and frames after the checkpoint are recomputed and rewritten. Detectors without
``get_state`` (MOG2, KNN) replay from the first frame, keeping masks already written and
re-creating missing ones; so does a resume whose ``checkpoint.npz`` cannot be read or restored, or
whose earlier masks (or scores files) are not all on disk (a note says why). A file is kept only if
it reads back as a mask (scores) of the frames' size and is not a symbolic link
(:mod:`~silkvision.export.verify`); a truncated or replaced one is written again. The final folder is
identical, byte for byte, to that of an uninterrupted run -- except ``masks.mkv``, whose Matroska
header carries a random segment UID (its decoded frames are identical). An unfinished export of an
image folder whose files changed only after the checkpoint (a bad image removed or replaced)
resumes from that checkpoint (:mod:`~silkvision.export.prefix`).

A frame that does not decode, or has another size than the frames before it
(:class:`~silkvision.errors.BadFrame`), stops the export with an error that names it
(``capture.on_bad_frame: stop``, the default); the frames before it are kept for a resume. With
``capture.on_bad_frame: skip`` the export goes on past it: no file is written for it, masks keep
the source's frame numbers, and ``export.json`` lists it (``"skipped"``) with the reason. A video
frame that FFmpeg decodes with errors (it conceals the damage) is exported and listed
(``"damaged"``) with FFmpeg's first message.
"""

from silkvision.export.engine import export_masks
from silkvision.export.folder import is_export_output
from silkvision.export.result import ExportResult
from silkvision.io.checkpoint import CHECKPOINT
from silkvision.io.manifest import MANIFEST

__all__ = ["export_masks", "ExportResult", "is_export_output", "MANIFEST", "CHECKPOINT"]

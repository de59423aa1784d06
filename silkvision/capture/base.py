"""The names this module held before ``silkvision.capture`` was split by concern, for code that
still imports them from here. New code imports from their homes: :mod:`.source` (the interface),
:mod:`.checks` (argument checks), :mod:`.images` (image files), :mod:`.groundtruth` and
:mod:`.opencv` (OpenCV's quirks).
"""

from silkvision.capture.checks import MAX_FRAME_SIDE, check_index, check_max_frames, check_resize
from silkvision.capture.groundtruth import GroundTruth, to_labels
from silkvision.capture.images import (IGNORED_FILES, IMAGE_EXTENSIONS, list_images, not_a_file,
                                       number_images, read_image, to_bgr)
from silkvision.capture.opencv import open_capture, opencv_alias, quiet_opencv, utf8_path
from silkvision.capture.source import Source

__all__ = ["Source", "GroundTruth", "IMAGE_EXTENSIONS", "IGNORED_FILES", "read_image", "list_images",
           "number_images", "not_a_file", "to_bgr", "to_labels", "check_resize", "check_max_frames",
           "check_index", "open_capture", "opencv_alias", "quiet_opencv", "utf8_path",
           "MAX_FRAME_SIDE"]

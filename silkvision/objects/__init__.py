"""Object-level output: the connected foreground regions of each mask (bounding box, area,
centroid) and the motion events they make up, computed from masks with :mod:`skimage.measure`.

>>> import numpy as np
>>> from silkvision.objects import find_regions
>>> mask = np.zeros((4, 6), np.uint8); mask[1:3, 2:5] = 255
>>> find_regions(mask)
[Region(area=6, x=2, y=1, width=3, height=2, cx=3.0, cy=1.5)]
"""

from silkvision.objects.events import Event, EventTracker
from silkvision.objects.folder import FORMATS, object_files, write_object_files
from silkvision.objects.regions import Region, find_regions
from silkvision.objects.writers import write_events, write_objects

__all__ = [
    "FORMATS",
    "Event",
    "EventTracker",
    "Region",
    "find_regions",
    "object_files",
    "write_events",
    "write_object_files",
    "write_objects",
]

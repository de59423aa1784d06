"""Batch export on a Dask cluster (``silkvision batch``): one resumable export per source.

>>> from silkvision.batch import expand_sources, open_cluster, check_workers, run_batch
>>> jobs = expand_sources(["archive/**/*.mp4"])                          # doctest: +SKIP
>>> with open_cluster(workers=4) as cluster:                              # doctest: +SKIP
...     check_workers(cluster, "masks")
...     result = run_batch(jobs, "masks", config, cluster)

Needs ``dask`` and ``distributed`` (silkvision's ``cluster`` extra).
"""

from silkvision.batch.cluster import Cluster, check_workers, open_cluster
from silkvision.batch.runner import BatchResult, run_batch
from silkvision.batch.sources import Job, expand_sources

__all__ = ["Job", "expand_sources", "Cluster", "open_cluster", "check_workers", "BatchResult", "run_batch"]

"""Named clusters reached over SSH: their definitions (:mod:`.clusters`), the connection
(:mod:`.ssh`), the one shell every Slurm command of a command runs in (:mod:`.shell`),
and copying job directories there and logs back (:mod:`.transfer`).

Nothing here is imported unless ``--remote``, a profile's ``remote:`` or a job's record
names a cluster.
"""

from __future__ import annotations

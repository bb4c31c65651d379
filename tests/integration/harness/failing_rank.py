"""A trainer that fails on purpose, decorated with torch's ``@record`` as a trainer should be.

    failing_rank.py MODE

``exit``: every rank joins a gloo process group; rank 1 exits with code 3 while rank 0
waits in an all_reduce rank 1 never joins (it fails when rank 1 is gone, or is stopped).
``oom``: rank 0 raises the error torch raises when CUDA runs out of memory.
``sleep``: every rank sleeps (a job to run past its time limit).
"""

import os
import sys
import time

from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    mode = sys.argv[1]
    rank = int(os.environ.get("RANK", "0"))
    if mode == "exit":
        import torch
        import torch.distributed as dist

        dist.init_process_group(backend="gloo")
        if rank == 1:
            os.write(1, b"rank 1 gives up\n")
            sys.exit(3)
        value = torch.ones(1)
        dist.all_reduce(value)
    elif mode == "oom":
        os.write(1, f"rank {rank} allocates\n".encode())
        if rank == 0:
            raise RuntimeError(
                "CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 79.15 GiB total "
                "capacity; 70.02 GiB already allocated; 1.56 GiB free)"
            )
        time.sleep(60)
    elif mode == "sleep":
        os.write(1, f"rank {rank} sleeps\n".encode())
        time.sleep(600)


if __name__ == "__main__":
    main()

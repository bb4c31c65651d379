"""Smallest multi-node torchrun check: all_reduce over gloo on CPU.

Every rank prints one line; with N ranks the sum is N * (N + 1) / 2.
All virtual Slurm nodes of the test cluster share one hostname, so the node
is taken from SLURMD_NODENAME (Slurm) or SKYPILOT_NODE_RANK (SkyPilot). It also
prints JOB_TAG (a config env_vars value) to show it reached the ranks.
"""

import os

import torch
import torch.distributed as dist


def main() -> None:
    dist.init_process_group(backend="gloo")
    rank = dist.get_rank()
    value = torch.tensor([rank + 1], dtype=torch.int64)
    dist.all_reduce(value, op=dist.ReduceOp.SUM)
    env = os.environ
    line = (
        f"rank={rank} local_rank={env['LOCAL_RANK']} world_size={dist.get_world_size()}"
        f" node={env.get('SLURMD_NODENAME') or 'sky' + env.get('SKYPILOT_NODE_RANK', '?')}"
        f" master_addr={env['MASTER_ADDR']} master_port={env['MASTER_PORT']}"
        f" env_world_size={env['WORLD_SIZE']} job_tag={env.get('JOB_TAG', '')}"
        f" sum={int(value.item())}\n"
    )
    # one write() per line: print() writes the text and the newline separately,
    # so lines of ranks sharing one stdout interleave
    os.write(1, line.encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

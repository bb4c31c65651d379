"""Live preflight: what the Slurm cluster itself will refuse, or accept and never run.

``validate --cluster`` and ``submit`` (for ``slurm:`` configs) read the cluster once
per run through the commands every login node has (:mod:`.client`, :mod:`.reader`),
parse their answers into plain data (:mod:`.model`, :mod:`.parse`) and report, as
ordinary diagnostics at the line of the field concerned, what the cluster would do
with the job (:mod:`.rules`, :mod:`.preflight`). Nothing here is imported by
``validate`` without ``--cluster``.
"""

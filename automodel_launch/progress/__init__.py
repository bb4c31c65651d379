"""How far a job's training is, read from what AutoModel writes while it runs.

AutoModel reports progress twice (SPEC, "AutoModel while a job runs"): rank 0 prints one
``step N | epoch E | loss ...`` line per step (:mod:`.lines`, the present), and JSON Lines
go to ``training.jsonl`` and ``validation.jsonl`` under ``checkpoint.checkpoint_dir``,
100 records at a time (:mod:`.history`, the past). :mod:`.bounds` reads what the job's
own config bounds (``max_steps``, the checkpoint interval, the time limit),
:mod:`.health` what looks wrong, :mod:`.forecast` where the time limit falls, and
:mod:`.read` puts them together for ``status`` and ``jobs``. Everything is read through
the job directory's bounded reader: a tail, never a whole file, never a link or a pipe.
"""

"""What each command does, once, returning data: the command line and the API both call it.

One module a command: :mod:`.plan` (what ``render`` and ``submit`` are asked, planned),
:mod:`.render`, :mod:`.submit` (``submit`` and ``rerun``: the one sequence that aims at
the cluster, connects, asks it, refuses, renders, places the job directory and hands it
over), :mod:`.validate` and :mod:`.preflight` (the cluster's word on a plan or on
reports); :mod:`.summary` is what ``submit`` shows before it hands a job over.

Nothing here prints: a caller that shows something while a command runs (the command
line's diagnostics, notes and spinner) passes the hooks that do. The command line parses
options into these calls and prints what they return;
:mod:`automodel_launch.api` checks a script's arguments into the same calls.
"""

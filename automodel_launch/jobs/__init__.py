"""After submit: every job recorded (manifest + registry), its state, logs and cancel.

One vocabulary of states across launchers (:mod:`.states`); one backend module per
launcher answers what its scheduler knows (:mod:`.slurm`, :mod:`.skypilot`,
:mod:`.local`). Nothing here is imported on the validate/render/schema paths.
"""

"""What the tests share: the stand-ins for what cannot run here (:mod:`.fake_slurm`)."""

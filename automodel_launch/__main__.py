from __future__ import annotations

from automodel_launch.cli import main

main()

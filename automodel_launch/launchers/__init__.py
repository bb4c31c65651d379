"""The launcher contract and the table of launchers, one class each.

A launcher renders a job, says which files its job directory holds, hands the job
over, and answers ``status``, ``logs`` and ``cancel`` for the jobs it ran; it also says
whether it runs job arrays and dependencies itself. :class:`Launcher` is that contract,
a :class:`typing.Protocol`: one class per launcher implements it
(:mod:`.slurm`, :mod:`.skypilot`, :mod:`.interactive`), each delegating to its render,
submit and jobs modules, and :data:`LAUNCHERS` has one row per class.

Adding a launcher is one class (a module here) and one row in :data:`LAUNCHERS`; its
name goes in :data:`automodel_launch.launcher_names.LauncherName`, the one list of names.
Nothing else asks "which launcher is this?". A launcher this package does not ship is
added while it runs with :func:`plug`: its row carries its name, its section's model and
its job ids' grammar, and the recipe document, the manifests and ``jobs`` take it from
there.

Importing this package is cheap: the classes import what they call (the SkyPilot SDK,
the scheduler's backends, the renderers) inside their methods, so a job command loads
only what its launcher needs. The validate path never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from automodel_launch.launchers.local import Interactive
from automodel_launch.launchers.skypilot import SkyPilot
from automodel_launch.launchers.slurm import Slurm

if TYPE_CHECKING:
    import re
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from pydantic import BaseModel

    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.handover import Handover, Submitted
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.launchers.shell import ShellCommand
    from automodel_launch.render.entry import JobSpec


class Launcher(Protocol):
    """What every launcher answers."""

    @property
    def name(self) -> str:
        """Its row in :data:`LAUNCHERS`, and what a job's manifest names."""
        ...

    @property
    def artifact(self) -> str:
        """The file in the job directory that runs the job."""
        ...

    @property
    def default_base(self) -> str:
        """Where job directories go when the section has no ``job_dir``."""
        ...

    @property
    def progress(self) -> str:
        """Shown while the job is handed over; empty: the run's own output shows progress."""
        ...

    @property
    def detached(self) -> bool:
        """The job runs apart from ``submit`` whatever ``--detach`` says (a scheduler's job)."""
        ...

    @property
    def arrays(self) -> bool:
        """The scheduler runs many points as one job array, with a cap on how many run at once."""
        ...

    @property
    def dependencies(self) -> bool:
        """The scheduler starts a job only after others have ended (``--after``)."""
        ...

    @property
    def remote(self) -> bool:
        """Its jobs go to a named cluster over SSH (``--remote``, a profile's ``remote:``)."""
        ...

    @property
    def preflight(self) -> bool:
        """``submit`` asks its cluster first what it would do with the job
        (:mod:`automodel_launch.commands.preflight`)."""
        ...

    @property
    def poll_seconds(self) -> float:
        """How often a sweep's driver asks for the states of the points it started."""
        ...

    @property
    def job_id(self) -> re.Pattern[str]:
        """What the scheduler's job id looks like (checked before it reaches a command line)."""
        ...

    @property
    def section_model(self) -> type[BaseModel] | None:
        """The model of the section ``NAME:`` that chooses it (None: chosen by no section)."""
        ...

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        """What ``render`` prints: the script, the task, or the command line."""
        ...

    def shell(
        self,
        document: LaunchDocument,
        environ: Mapping[str, str],
        command: Sequence[str],
        nodes: int | None,
    ) -> ShellCommand:
        """What ``shell`` runs in the job's environment, built from ``environ`` (this
        host's, or a named cluster's); raises
        :class:`~automodel_launch.launchers.shell.ShellError` where no shell is opened."""
        ...

    def summary(self, document: LaunchDocument, nproc_per_node: int) -> list[tuple[str, str]]:
        """``submit``'s lines of what runs where (the launcher, its resources, its variables
        by name), before the job directory's."""
        ...

    def record_details(self, document: LaunchDocument) -> dict[str, Any]:
        """What the job's manifest keeps of the request (``details``)."""
        ...

    def repo_root(self, document: LaunchDocument) -> str | None:
        """The checkout the job runs its code from, as the section names it (None: the
        code installed in the image)."""
        ...

    def code_root(self, document: LaunchDocument, environ: Mapping[str, str]) -> Path | None:
        """Where :meth:`repo_root` is on this host, to take the job's code snapshot from."""
        ...

    def job_files(self, document: LaunchDocument, artifact: str, job_config: str) -> dict[str, str]:
        """File name -> content of the job directory, around the rendered artifact (and
        whatever else the launcher's job needs there, from ``document``)."""
        ...

    def submit(self, handover: Handover) -> Submitted:
        """Hand the written job directory over (``dry_run``: check it, start nothing)."""
        ...

    def statuses(self, manifests: list[Manifest]) -> list[JobStatus]:
        """Each job's status, in the order given: one scheduler query for them all."""
        ...

    def logs(self, manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
        """Print the job's output; the exit code to end with."""
        ...

    def cancel(self, manifest: Manifest) -> JobStatus:
        """Stop the job; its state afterwards."""
        ...

    def cancel_all(self, manifests: list[Manifest]) -> list[JobStatus]:
        """Stop every job of ``manifests`` not ended yet (a sweep's points: at once where
        the scheduler can, one ``scancel``); their states afterwards, in order."""
        ...


LAUNCHERS: dict[str, Launcher] = {
    launcher.name: launcher for launcher in (Slurm(), SkyPilot(), Interactive())
}


PROTOCOL = tuple(
    sorted(name for name in vars(Launcher) if not name.startswith("_") and name != "name")
)
"""What every launcher answers (``name`` first): a launcher plugged in without one of them
is refused."""


def launcher_of(document: LaunchDocument) -> Launcher:
    return LAUNCHERS[document.launcher]


def plug(launcher: Launcher) -> None:
    """Add ``launcher``, one this package does not ship, to the table while this process
    runs: a recipe chooses it with a section of its name, validated on its
    :attr:`~Launcher.section_model` (its errors are diagnostics as any section's), and its
    jobs' manifests name it, their ids checked on its :attr:`~Launcher.job_id`."""
    from automodel_launch.config.document import plug_section
    from automodel_launch.launchers.ids import GRAMMAR

    missing = [member for member in PROTOCOL if not hasattr(launcher, member)]
    if missing:
        called = getattr(launcher, "name", type(launcher).__name__)
        raise ValueError(f"launcher {called!r} does not answer {', '.join(missing)}")
    name, model = launcher.name, launcher.section_model
    if name in LAUNCHERS or name == "local":  # ``jobs --launcher local``: the interactive one
        raise ValueError(f"there is a launcher {name!r} already")
    if model is None:
        raise ValueError(f"launcher {name!r} has no section_model: a section chooses it")
    plug_section(name, model)
    GRAMMAR[name] = launcher.job_id
    LAUNCHERS[name] = launcher


def unplug(name: str) -> None:
    """Take a plugged launcher out of the table again (the shipped ones stay)."""
    from automodel_launch.config.document import unplug_section
    from automodel_launch.launchers.ids import GRAMMAR

    unplug_section(name)
    del GRAMMAR[name], LAUNCHERS[name]

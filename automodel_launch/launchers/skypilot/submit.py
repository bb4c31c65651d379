"""Launch the rendered task through SkyPilot's SDK (the optional ``skypilot`` extra).

Spot tasks and a sweep's points go to ``sky.jobs.launch`` (managed jobs recover from
preemption, and each point's ends by itself); others to ``sky.launch``. Secret values
(resolved from the submitting environment by
:func:`automodel_launch.launchers.skypilot.render.secret_values`) are handed to the SDK here and
never written to the job directory; whatever SkyPilot says back is redacted of them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.handover import SubmitError, Submitted
from automodel_launch.launchers.ids import is_scheduler_id
from automodel_launch.secrets import Redactor, display

if TYPE_CHECKING:
    from automodel_launch.handover import Handover


def submit_skypilot(
    task_config: dict[str, Any],
    job_dir: Path,
    secret_values: Mapping[str, str],
    *,
    dry_run: bool = False,
    down: bool = True,
    managed: bool = False,
) -> Submitted:
    """Launch the task: a managed job when it is a spot task or ``managed`` (a sweep's
    point: one managed job each), else a job on a cluster of its own."""
    try:
        import sky
    except ImportError:
        raise SubmitError(
            "SkyPilot is not installed: pip install 'automodel-launch[skypilot]'"
        ) from None
    secrets = task_config.get("secrets") or {}
    missing = [name for name in secrets if not secret_values.get(name)]
    if missing:
        raise SubmitError("set " + ", ".join(missing) + " before submitting: the task needs them")
    task = sky.Task.from_yaml_config(copy.deepcopy(task_config))  # it consumes the dict
    if secrets:
        task.update_secrets({name: secret_values[name] for name in secrets})
    name = str(task_config["name"])
    managed = managed or bool(task_config.get("resources", {}).get("use_spot"))
    if dry_run:
        kind = "managed job" if managed else "cluster job"
        return Submitted(f"SkyPilot accepts the task ({kind} {name}); nothing was launched")
    try:
        if managed:
            request = sky.jobs.launch(task, name=name)
        else:
            autostop = task_config["resources"].get("autostop") or {}
            request = sky.launch(
                task,
                cluster_name=name,
                idle_minutes_to_autostop=autostop.get("idle_minutes"),
                down=down,
            )
        result = sky.stream_and_get(request)
    except Exception as exc:  # the SDK raises many types; all end the same way for the user
        hide = Redactor(secret_values.values())
        raise SubmitError(f"SkyPilot refused the task: {hide(str(exc))}") from None
    job_id = _job_id(result)
    if managed:
        summary = f"launched SkyPilot managed job {job_id} ({name}); files in {job_dir}"
    else:
        summary = f"launched SkyPilot job {job_id} on cluster {name}; files in {job_dir}"
    return Submitted(summary, job_id, {"managed": managed, "cluster": name})


def _job_id(result: Any) -> str | None:
    """``sky.launch`` gives ``(job_id, handle)``, ``sky.jobs.launch`` ``([job_id], handle)``;
    an id that is not a number is not recorded (it would reach the SDK's calls later)."""
    first = result[0] if isinstance(result, tuple) and result else result
    if isinstance(first, list):
        first = first[0] if first else None
    if first is None:
        return None
    if type(first) is not int or not is_scheduler_id("skypilot", str(first)):
        raise SubmitError(
            f"SkyPilot launched the task but gave no job id this tool can read "
            f"({display(repr(first))}): look with `sky queue` or `sky jobs queue`",
            started=True,
        )
    return str(first)


def hand_over(handover: Handover) -> Submitted:
    from ruamel.yaml import YAML

    from automodel_launch.launchers.skypilot.render import secret_values
    from automodel_launch.layout import SKYPILOT_TASK

    section = handover.document.skypilot
    assert section is not None, "a SkyPilot job has a skypilot: section"
    task = YAML(typ="safe").load(handover.files[SKYPILOT_TASK])
    values = secret_values(section, handover.environ)
    return submit_skypilot(
        task, handover.job_dir, values, dry_run=handover.dry_run, down=section.down,
        managed=handover.sweep_point,
    )  # fmt: skip

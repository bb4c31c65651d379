"""What a SkyPilot job leaves behind, and what it starts with.

Checkpoints (and the consolidated model AutoModel exports into them) go to
``checkpoint.checkpoint_dir``, by default the relative ``checkpoints/``: on a SkyPilot
node that is ``~/sky_workdir/checkpoints``, the node's own disk. The teardown the task
asks for (``down``, after the job or the autostop timer; a managed spot job's cleanup; a
preemption) deletes that disk, and with several nodes each disk holds only its own ranks'
shards. Only a bucket mounted through ``file_mounts`` keeps them; a path under no such
mount is judged by the cluster's fate. A spot job keeps the code it always had
(``spot-relative-checkpoint-dir``); any other job gets ``checkpoint-on-vm-disk``: one
finding per file, never both.

The nodes start from SkyPilot's default image, which has no AutoModel: without ``setup``
or an ``image_id`` the job cannot import ``nemo_automodel``.

Both are about the AutoModel job a recipe describes: a launcher snippet without recipe
sections may be a fragment (``validate`` accepts it), and is judged only by the spot
rules, which have always asked what a spot job needs.
"""

from __future__ import annotations

from typing import Any

from automodel_launch.automodel.versions import at_least
from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.config.recipe import Checkpoint, checkpointing_enabled
from automodel_launch.config.sky_storage import SHAPE, StorageMount, holder
from automodel_launch.config.skypilot import SkyPilotConfig
from automodel_launch.diagnostics import Loc
from automodel_launch.rules.context import Context

DEFAULT_DIR = "checkpoints/"
"""AutoModel's ``CheckpointingConfig.checkpoint_dir`` when the recipe sets none."""
FIRST_MSC = "0.6.0"
"""The first release that writes ``msc://`` checkpoint paths to object storage."""
IMAGE = "docker:nvcr.io/nvidia/nemo-automodel:TAG"
JUDGED = frozenset({"file_mounts", "use_spot", "down", "autostop", "num_nodes"})
"""The section's fields the cluster's fate is read from."""


def results_on_vm_disk(ctx: Context) -> None:
    sky = ctx.section("skypilot", SkyPilotConfig)
    if sky is None or ctx.invalid("skypilot") & JUDGED:
        return  # judged on settings the user did not write
    if not sky.use_spot and not has_recipe(ctx.data):
        return
    if "checkpoint_dir" in ctx.invalid("checkpoint"):
        return
    checkpoint = ctx.section("checkpoint", Checkpoint)
    if not checkpointing_enabled(checkpoint):
        return  # nothing is written (spot-checkpoint-disabled says what that costs)
    written = checkpoint.checkpoint_dir if checkpoint else None
    directory = written or DEFAULT_DIR
    if directory.startswith("${"):
        return  # resolved where the job runs: not guessed at
    version = ctx.release().version
    if directory.startswith("msc://") and at_least(version, FIRST_MSC):
        return
    where = _where(sky, directory, version)
    if where is None:
        return
    fate = _fate(sky)
    if fate is None:
        return
    what = "checkpoints"
    if not _no_consolidated(ctx.data.get("checkpoint")):
        what += " and the consolidated model"
    loc: Loc = ("skypilot", "use_spot") if sky.use_spot else ("skypilot",)
    ctx.sink.add(
        "spot-relative-checkpoint-dir" if sky.use_spot else "checkpoint-on-vm-disk",
        ("checkpoint", "checkpoint_dir") if written else loc,
        f"{what} go to '{directory}', {where}, {fate}",
        _hint(sky, directory),
        at_key=not written and not sky.use_spot,
    )


def has_recipe(data: dict[str, Any]) -> bool:
    """The file holds recipe sections, not only a launcher's."""
    return any(key not in LAUNCHER_SECTIONS and value is not None for key, value in data.items())


def _where(sky: SkyPilotConfig, directory: str, version: str) -> str | None:
    """Where on the node the directory is, or None when a bucket keeps it."""
    if "://" in directory:
        return f"a path AutoModel {version} writes as a directory on each node's own disk"
    found = holder(dict(sky.file_mounts), directory)
    if found is None:
        return "on each node's own disk"
    dest, held = found
    if isinstance(held, StorageMount):
        if held.writes_through:
            return None
        if (held.mode or "MOUNT").upper() != "COPY":
            return f"in a bucket mounted at {dest} that goes with the cluster (persistent: false)"
    return f"under file_mounts {dest}, copied onto each node's own disk (writes stay there)"


def _fate(sky: SkyPilotConfig) -> str | None:
    """What happens to the nodes' disks, or None when they stay and one disk holds it all."""
    several = (
        f"and each of the {sky.num_nodes} nodes keeps only its own ranks' shards"
        if sky.num_nodes > 1
        else ""
    )
    if sky.use_spot:
        return "which a preemption discards (and the managed job's cleanup deletes)" + (
            f" {several}" if several else ""
        )
    if sky.down:
        return f"which is deleted when {_torn_down(sky)}" + (f" {several}" if several else "")
    if several:
        return several.removeprefix("and ") + ": no disk holds a whole checkpoint to resume from"
    return None


def _torn_down(sky: SkyPilotConfig) -> str:
    if sky.autostop is None:
        return "the cluster is torn down at the end of the job (down: true)"
    return f"the cluster is torn down after {sky.autostop} idle minutes (down: true)"


def _hint(sky: SkyPilotConfig, directory: str) -> str:
    bucket = (
        f"{{/checkpoints: {{source: {directory}, mode: MOUNT}}}}" if "://" in directory else SHAPE
    )
    hint = (
        f"mount a bucket on every node, skypilot.file_mounts: {bucket}, and set "
        "checkpoint.checkpoint_dir: /checkpoints"
    )
    if not sky.use_spot and sky.num_nodes == 1:
        hint += "; or keep the cluster (down: false) and copy them off before you take it down"
    return hint


def _no_consolidated(raw: Any) -> bool:
    """The recipe turns the consolidated export off (``save_consolidated: false``) or saves
    ``torch_save`` shards, which AutoModel does not consolidate."""
    if not isinstance(raw, dict):
        return False
    off = raw.get("save_consolidated") in (False, "false", "False")
    return off or raw.get("model_save_format") == "torch_save"


def automodel_on_the_nodes(ctx: Context) -> None:
    sky = ctx.section("skypilot", SkyPilotConfig)
    if sky is None or ctx.invalid("skypilot") & {"setup", "image_id"} or not has_recipe(ctx.data):
        return
    if sky.setup or sky.image_id:
        return  # what they install, or hold, is not guessed at
    version = ctx.release().version
    install = (
        "pip install git+https://github.com/NVIDIA-NeMo/Automodel.git"
        if version == "main"
        else f"pip install nemo-automodel=={version}"
    )
    ctx.sink.add(
        "no-automodel-on-nodes",
        ("skypilot",),
        "the task has neither setup nor image_id: the nodes start from SkyPilot's default "
        "image, which has no AutoModel, and the job cannot import nemo_automodel",
        f'add setup: "{install}" (AutoModel {version}, the release this file is checked '
        f"against), or image_id: {IMAGE}, an image with AutoModel",
        at_key=True,
    )

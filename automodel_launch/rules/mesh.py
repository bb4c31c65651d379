"""AutoModel's device mesh, release by release: what it builds from ``distributed:`` and
the world size, and the data-parallel size its StepScheduler is handed.

Read from the released sources (``nemo_automodel/...``):

- 0.1.0, 0.1.2, 0.2.0: ``distributed:`` is instantiated from its ``_target_``
  (``components/distributed/fsdp2.py: FSDP2Manager._setup_distributed``,
  ``megatron_fsdp.py: MegatronFSDPManager._setup_distributed``; ``DDPManager`` builds no
  mesh). No ``distributed:`` section means no mesh, and the recipe's dp is 1
  (``recipes/base_recipe.py: _get_dp_group_size``). 0.1.x hands the StepScheduler the
  ``dp_cp`` group when ``cp_size > 1``; FSDP2 needs ``dp % ep == 0`` (0.1.x) or
  ``dp * cp % ep == 0`` (0.2.0).
- 0.3.0, 0.4.0: ``strategy:`` (``fsdp2``, ``megatron_fsdp``, ``ddp``) picks the mesh
  (``recipes/_dist_setup.py: parse_distributed_section``,
  ``components/distributed/mesh_utils.py: create_device_mesh``,
  ``_create_fsdp2_device_mesh``, ``_create_megatron_fsdp_device_mesh``); FSDP2 needs
  ``dp * cp % ep == 0``; DDP's dp is the world size.
- 0.5.0 to 0.7.0 and main: ``recipes/_dist_utils.py: parse_distributed_section``,
  ``mesh_utils.py: _create_device_meshes`` (megatron_fsdp refuses pp and ep, ddp refuses
  tp, pp, cp and ep: ``_require_size_one``), ``_infer_dp_size``,
  ``_create_fsdp2_device_mesh`` (``dp * cp * tp % ep == 0``).

Every release: tp, cp, pp and ep of None or below 1 are read as 1; a ``dp_size`` above 0
is taken as written (else world / (tp x cp x pp), or / (tp x cp) for Megatron-FSDP, which
has no pp axis), and a mesh of another size than the world fails when torch builds it
(``DeviceMesh``: bigger than the world) or when a rank outside it looks itself up.
Up to 0.4.0 a ``step_scheduler.dp_size`` replaces the mesh's dp
(``recipes/llm/train_ft.py: build_step_scheduler`` merges the section over its
defaults); from 0.5.0 ``train_ft`` drops it (``_STEP_SCHEDULER_RUNTIME_KEYS``) while the
multimodal recipe still merges it.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any, Literal, NamedTuple

from automodel_launch.automodel.versions import at_least
from automodel_launch.diagnostics import Loc

Strategy = Literal["fsdp2", "megatron_fsdp", "ddp", "none"]
"""``none``: no ``distributed:`` section before 0.3.0, so no mesh at all."""

AXES = ("tp_size", "cp_size", "pp_size", "ep_size")
DIST = "distributed"


def _from(version: str, first: str) -> bool:
    return at_least(version, first)


class Release(NamedTuple):
    """How one AutoModel release builds its mesh and its StepScheduler (see
    :func:`release_of`)."""

    version: str
    by_target: bool
    """``distributed:`` names its manager class (``_target_``), not a ``strategy``."""
    dp_counts_cp: bool
    """The StepScheduler's dp is dp x cp when cp_size > 1."""
    ep_axes: tuple[str, ...]
    """The mesh axes whose product ep_size must divide (FSDP2)."""
    scheduler_takes_dp_size: bool
    """``step_scheduler.dp_size`` replaces the mesh's dp (else: the recipe decides)."""
    strategy_limits: bool
    """megatron_fsdp and ddp refuse the sizes they do not support."""
    replicate_needs_fsdp2: bool
    ddp_dp_is_world: bool
    """Without a mesh, the recipe's dp is the world size (else 1)."""
    positive: tuple[str, ...]
    """StepScheduler keys that must be above 0 (null passes where AutoModel allows it)."""


@cache
def release_of(version: str) -> Release:
    positive = ["global_batch_size", "local_batch_size", "max_steps", "num_epochs",
                "val_every_steps"]  # fmt: skip
    if _from(version, "0.3.0"):
        positive.append("log_remote_every_steps")
    if _from(version, "0.4.0"):
        positive.append("gc_every_steps")
    if _from(version, "0.5.0"):
        positive.append("loss_average_window_steps")
    if not _from(version, "0.2.0"):
        ep_axes: tuple[str, ...] = ("dp",)
    elif not _from(version, "0.5.0"):
        ep_axes = ("dp", "cp")
    else:
        ep_axes = ("dp", "cp", "tp")
    return Release(
        version,
        by_target=not _from(version, "0.3.0"),
        dp_counts_cp=not _from(version, "0.2.0"),
        ep_axes=ep_axes,
        scheduler_takes_dp_size=not _from(version, "0.5.0"),
        strategy_limits=_from(version, "0.5.0"),
        replicate_needs_fsdp2=_from(version, "0.3.0"),
        ddp_dp_is_world=_from(version, "0.3.0"),
        positive=tuple(positive),
    )


class Unknown:
    """A value that cannot be known before the job starts (see :func:`read_int`)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


def value_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def read_int(data: Any, loc: Loc) -> int | Unknown | None:
    """The value at ``loc`` as AutoModel's config loader reads it: None when absent or
    null (also the words ``none``/``None``), an int, or UNKNOWN.

    The loader turns a string into a Python literal (``"8"`` is 8), so such a value is
    read the same way. UNKNOWN, skipped by every rule: a ``${VAR}`` reference (an
    environment variable of the job, resolved when it starts), and anything that is not
    a whole number (a bool, float, list or other text): a type the size checks cannot
    reason about, and one the signature checks report where AutoModel refuses it.
    """
    value = value_at(data, loc)
    if isinstance(value, str):
        value = _literal(value.strip())
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return UNKNOWN


def _literal(text: str) -> Any:
    """``none`` (and, by ``literal_eval``, ``None``) is None; text no literal reads, such
    as a ``${VAR}`` reference, stays text; AutoModel leaves text past 1000 characters
    alone."""
    if text == "none":
        return None
    if len(text) > 1000:
        return text
    import ast  # only for a size written as text: most files have none

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


class Mesh(NamedTuple):
    """``distributed:`` as the release reads it; sizes below 1 already read as 1."""

    strategy: Strategy
    tp: int = 1
    cp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int | None = None
    """An explicit dp_size above 0, else None (derived from the world size)."""
    replicate: int = 1

    def has_mesh(self) -> bool:
        return self.strategy in ("fsdp2", "megatron_fsdp")

    def axes(self) -> tuple[tuple[str, int], ...]:
        """The sizes beside dp, in the release's mesh (Megatron-FSDP has no pp axis)."""
        if self.strategy == "megatron_fsdp":
            return (("tp_size", self.tp), ("cp_size", self.cp))
        return (("tp_size", self.tp), ("cp_size", self.cp), ("pp_size", self.pp))

    def non_dp(self) -> int:
        return math.prod(size for _, size in self.axes())

    def dp_for(self, ranks: int | None) -> int | None:
        """The mesh's dp: explicit, or the ranks over the other axes when they divide."""
        if self.dp is not None:
            return self.dp
        if ranks is None or ranks % self.non_dp():
            return None
        return ranks // self.non_dp()

    def ep_base(self, release: Release, dp: int) -> int:
        """What ep_size must divide (FSDP2)."""
        sizes = {"dp": dp, "cp": self.cp, "tp": self.tp}
        return math.prod(sizes[axis] for axis in release.ep_axes)

    def least_dp(self, release: Release) -> int:
        """The smallest dp the release accepts for ep and dp_replicate."""
        dp = 1
        if self.strategy == "fsdp2":
            others = self.ep_base(release, 1)
            dp = self.ep // math.gcd(self.ep, others)
        if self.strategy == "fsdp2" and self.replicate > 1:
            dp = math.lcm(dp, self.replicate)
            dp = dp * 2 if dp == self.replicate else dp
        return dp


def read_mesh(data: dict[str, Any], release: Release) -> Mesh | None:
    """None when the mesh cannot be known: an unknown strategy or manager, a size that is
    not a plain number (see :func:`read_int`), or knowledge distillation with
    ``separate_meshes``, where ``distributed:`` is the student's share of the ranks and
    ``teacher_distributed:`` the rest (``recipes/kd_utils.py:
    create_kd_distributed_setups``)."""
    if data.get("separate_meshes") not in (None, False, "false", "False", "none", "None"):
        return None
    section = data.get(DIST)
    if section is None:
        return Mesh("none" if release.by_target else "fsdp2")
    if not isinstance(section, dict):
        return None
    strategy = _strategy(section, release)
    sizes = {key: read_int(data, (DIST, key)) for key in (*AXES, "dp_size", "dp_replicate_size")}
    if strategy is None or any(isinstance(v, Unknown) for v in sizes.values()):
        return None
    read = {key: value if isinstance(value, int) and value > 0 else None
            for key, value in sizes.items()}  # fmt: skip
    return Mesh(
        strategy,
        tp=read["tp_size"] or 1,
        cp=read["cp_size"] or 1,
        pp=read["pp_size"] or 1,
        ep=read["ep_size"] or 1,
        dp=read["dp_size"],
        replicate=read["dp_replicate_size"] or 1,
    )


_MANAGERS: dict[str, Strategy] = {
    "FSDP2Manager": "fsdp2",
    "MegatronFSDPManager": "megatron_fsdp",
    "DDPManager": "ddp",
}
_STRATEGIES: dict[str, Strategy] = {
    "fsdp2": "fsdp2",
    "megatron_fsdp": "megatron_fsdp",
    "ddp": "ddp",
}
_ALIASES: dict[str, Strategy] = {"megatron-fsdp": "megatron_fsdp", "mfsdp": "megatron_fsdp"}
"""Accepted, in any letter case, from 0.5.0."""


def _strategy(section: dict[str, Any], release: Release) -> Strategy | None:
    if release.by_target:
        target = section.get("_target_")
        return _MANAGERS.get(target.rpartition(".")[2]) if isinstance(target, str) else None
    written = section.get("strategy", "fsdp2")
    if not isinstance(written, str):
        return None
    if release.strategy_limits:
        written = written.lower()
        return _STRATEGIES.get(written) or _ALIASES.get(written)
    return _STRATEGIES.get(written)

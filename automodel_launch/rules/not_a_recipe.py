"""YAML that is no AutoModel recipe: a Kubernetes manifest, a compose file, a CI workflow.

Such a file has none of a recipe's sections, so nothing in it is checked, and without
this rule it would validate clean and ``render`` would make an ``automodel`` job of it.
:func:`what_it_is` names what the file looks like from its top-level keys (each shape is
one no recipe has: the corpus of 721 real recipes matches none), and only when the file
has no recipe section at all.

Severity: a note for ``validate``, an error for ``render`` and ``submit``. The
pre-commit hook runs ``validate`` on every YAML file of the repository (``types:
[yaml]``) except a fixed list of names (workflows, compose files, mkdocs.yml...); a
Kubernetes manifest, a conda environment or a Helm chart beside the recipes is a good
file of its own kind, and must not fail a commit, not even under ``--strict`` (which
fails on warnings). A note says what the file was taken for and that nothing in it was
checked; making a job of it is what is refused. The rules after this one do not run on
such a file (they would judge it as a recipe), and neither do AutoModel's loader checks
(:data:`LOADER_CODES`: AutoModel never reads it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from automodel_launch.diagnostics import Severity
from automodel_launch.rules.context import Context

RECIPE_SECTIONS = frozenset(
    {"recipe", "model", "dataset", "dataloader", "step_scheduler", "optimizer", "loss_fn",
     "checkpoint", "distributed", "dist_env", "peft", "validation_dataset"}
)  # fmt: skip
"""A file with any of these is taken as a recipe, whatever else it holds."""
LOADER_CODES = frozenset({"key-not-text", "tab-not-space"})
"""What the loader reports about AutoModel's own reading (PyYAML): not said of a file
AutoModel never reads."""

LEAVE_OUT = (
    "automodel-launch checks AutoModel recipes: leave this file out (for pre-commit, with "
    "exclude: in the hook's entry of .pre-commit-config.yaml)"
)


@dataclass(frozen=True)
class Looks:
    what: str
    key: str
    """The top-level key that shows it (where the diagnostic points)."""
    hint: str


Shape = Callable[[dict[str, Any]], "Looks | None"]


def _kubernetes(data: dict[str, Any]) -> Looks | None:
    kind, api = data.get("kind"), data.get("apiVersion")
    if not isinstance(api, str):
        return None
    if isinstance(kind, str):
        return Looks(
            f"a Kubernetes manifest (kind: {kind})",
            "apiVersion",
            "apply it with kubectl; to train on Kubernetes from a recipe, add skypilot: with "
            "cloud: kubernetes (launched here)",
        )
    if "name" in data and "version" in data:
        return Looks("a Helm chart (Chart.yaml)", "apiVersion", "install it with helm")
    return None


def _compose(data: dict[str, Any]) -> Looks | None:
    services = data.get("services")
    if (
        isinstance(services, dict)
        and services
        and all(isinstance(v, dict) or v is None for v in services.values())
    ):
        return Looks(
            "a Docker Compose file",
            "services",
            "run it with `docker compose`; a recipe names its container in "
            "slurm.container_image or skypilot.image_id",
        )
    return None


def _github(data: dict[str, Any]) -> Looks | None:
    if isinstance(data.get("jobs"), dict) and "on" in data:
        return Looks(
            "a GitHub Actions workflow",
            "jobs",
            "workflows belong in .github/workflows/, which the pre-commit hook leaves out",
        )
    runs = data.get("runs")
    if isinstance(runs, dict) and "using" in runs:
        return Looks("a GitHub Action's metadata (action.yml)", "runs", LEAVE_OUT)
    return None


def _gitlab(data: dict[str, Any]) -> Looks | None:
    jobs = [k for k, v in data.items() if isinstance(v, dict) and "script" in v and "stage" in v]
    if isinstance(data.get("stages"), list) or jobs:
        key = "stages" if "stages" in data else str(jobs[0])
        return Looks("a GitLab CI configuration", key, LEAVE_OUT)
    return None


def _pre_commit(data: dict[str, Any]) -> Looks | None:
    repos = data.get("repos")
    if isinstance(repos, list) and any(isinstance(r, dict) and "repo" in r for r in repos):
        return Looks("a pre-commit configuration", "repos", LEAVE_OUT)
    return None


def _conda(data: dict[str, Any]) -> Looks | None:
    if isinstance(data.get("dependencies"), list) and (
        isinstance(data.get("channels"), list) or isinstance(data.get("name"), str)
    ):
        return Looks(
            "a conda environment file",
            "dependencies",
            "create it with `conda env create -f FILE`; a job's environment comes from its "
            "container image or skypilot.setup",
        )
    return None


_SKYPILOT_TASK = ("resources", "num_nodes", "file_mounts", "envs", "workdir", "secrets")


def _skypilot_task(data: dict[str, Any]) -> Looks | None:
    if ("run" in data or "setup" in data) and any(k in data for k in _SKYPILOT_TASK):
        return Looks(
            "a SkyPilot task",
            "run" if "run" in data else "setup",
            "launch it with `sky launch FILE`; to launch a recipe on SkyPilot, give it a "
            "skypilot: section",
        )
    return None


def _others(data: dict[str, Any]) -> Looks | None:
    if ("openapi" in data or "swagger" in data) and "info" in data:
        key = "openapi" if "openapi" in data else "swagger"
        return Looks("an OpenAPI description", key, LEAVE_OUT)
    if isinstance(data.get("site_name"), str):
        return Looks("an MkDocs configuration", "site_name", LEAVE_OUT)
    resources = data.get("Resources")
    if "AWSTemplateFormatVersion" in data or (
        isinstance(resources, dict)
        and any(isinstance(r, dict) and str(r.get("Type", "")).startswith("AWS::")
                for r in resources.values())
    ):  # fmt: skip
        key = "AWSTemplateFormatVersion" if "AWSTemplateFormatVersion" in data else "Resources"
        return Looks("an AWS CloudFormation template", key, LEAVE_OUT)
    if "version" in data and isinstance(data.get("updates"), list):
        return Looks("a Dependabot configuration", "updates", LEAVE_OUT)
    return None


SHAPES: tuple[Shape, ...] = (
    _kubernetes, _compose, _github, _gitlab, _pre_commit, _conda, _skypilot_task, _others,
)  # fmt: skip


def what_it_is(data: dict[str, Any]) -> Looks | None:
    """What a file that is no recipe looks like; None for a recipe, or for what is unknown."""
    if RECIPE_SECTIONS.intersection(data):
        return None
    for shape in SHAPES:
        found = shape(data)
        if found is not None:
            return found
    return None


def not_a_recipe(ctx: Context) -> None:
    looks = what_it_is(ctx.data)
    if looks is None:
        return
    validating = ctx.purpose == "validate"
    ctx.sink.add(
        "not-a-recipe",
        (looks.key,),
        f"the file looks like {looks.what}, not an AutoModel recipe: "
        + ("nothing in it was checked" if validating else "there is nothing to train"),
        looks.hint,
        at_key=True,
        severity=Severity.NOTE if validating else Severity.ERROR,
    )
    ctx.finished = True

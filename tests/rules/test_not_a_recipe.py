"""Files that are not what they seem: YAML that is no recipe is named for what it looks
like (a note for validate, an error for render/submit), and a launcher section alone
gets a note of what render and submit will need."""

from __future__ import annotations

import textwrap

import pytest

from automodel_launch.loading import load_text
from automodel_launch.rules.not_a_recipe import RECIPE_SECTIONS, what_it_is
from automodel_launch.validation import validate_result, validate_text
from tests.conftest import brief, offline_settings

SHAPES = [
    ("apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n", "a Kubernetes manifest (kind: ConfigMap)",
     "apiVersion"),
    ("apiVersion: v2\nname: trainer\nversion: 0.1.0\n", "a Helm chart (Chart.yaml)", "apiVersion"),
    ("services:\n  web:\n    image: nginx\n  db:\n", "a Docker Compose file", "services"),
    ("on: push\njobs:\n  a: {runs-on: x}\n", "a GitHub Actions workflow", "jobs"),
    ("name: x\nruns:\n  using: node20\n", "a GitHub Action's metadata (action.yml)", "runs"),
    ("stages: [build, test]\n", "a GitLab CI configuration", "stages"),
    ("train:\n  stage: test\n  script: [make]\n", "a GitLab CI configuration", "train"),
    ("repos:\n  - repo: local\n", "a pre-commit configuration", "repos"),
    ("channels: [defaults]\ndependencies: [python]\n", "a conda environment file",
     "dependencies"),
    ("name: env\ndependencies: [python]\n", "a conda environment file", "dependencies"),
    ("resources: {cpus: 4}\nrun: echo\n", "a SkyPilot task", "run"),
    ("setup: pip install x\nenvs: {A: b}\n", "a SkyPilot task", "setup"),
    ("openapi: 3.1.0\ninfo: {title: x}\n", "an OpenAPI description", "openapi"),
    ("swagger: '2.0'\ninfo: {title: x}\n", "an OpenAPI description", "swagger"),
    ("site_name: Docs\n", "an MkDocs configuration", "site_name"),
    ("AWSTemplateFormatVersion: '2010-09-09'\n", "an AWS CloudFormation template",
     "AWSTemplateFormatVersion"),
    ("Resources:\n  B: {Type: AWS::S3::Bucket}\n", "an AWS CloudFormation template", "Resources"),
    ("version: 2\nupdates: [{package-ecosystem: pip}]\n", "a Dependabot configuration",
     "updates"),
]  # fmt: skip


def data(text: str) -> dict[str, object]:
    loaded = load_text(text, "f.yaml").loaded
    assert loaded is not None
    return loaded.data


@pytest.mark.parametrize(("text", "what", "key"), SHAPES)
def test_what_a_file_looks_like(text: str, what: str, key: str) -> None:
    looks = what_it_is(data(text))
    assert looks is not None
    assert (looks.what, looks.key) == (what, key)
    assert looks.hint


@pytest.mark.parametrize(("text", "what", "key"), SHAPES)
@pytest.mark.parametrize("section", sorted(RECIPE_SECTIONS))
def test_a_recipe_section_makes_it_a_recipe(text: str, what: str, key: str, section: str) -> None:
    assert what_it_is(data(f"{section}: {{}}\n{text}")) is None


@pytest.mark.parametrize(
    "text",
    [
        "kind: PyTorchJob\n",  # no apiVersion
        "apiVersion: 3\nkind: x\n",  # not a string
        "apiVersion: v1\n",  # neither kind nor a chart
        "services: {}\n",
        "services: [a]\n",
        "services:\n  a: 1\n",
        "jobs: {a: {}}\n",  # no trigger
        "runs: {a: 1}\n",
        "stages: build\n",
        "train:\n  script: [make]\n",  # a job needs its stage
        "repos: [{url: x}]\n",
        "dependencies: [python]\n",
        "run: echo\n",
        "info: {title: x}\n",
        "site_name: 3\n",
        "Resources:\n  B: {Type: GCP::Bucket}\n",
        "version: 2\n",
        "slurm:\n  nodes: 1\n",
        "ci:\n  recipe_owner: x\n",
    ],
)
def test_what_is_not_one_of_them(text: str) -> None:
    assert what_it_is(data(text)) is None


MANIFEST = """\
apiVersion: batch/v1
kind: Job
on: yes
spec:
  template:
    spec:
      containers: [{name: x, image: y, env: [{name: HF_TOKEN, value: "${HF_TOKEN}"}]}]
"""


def test_validate_notes_it_and_judges_nothing_else() -> None:
    report = validate_text(MANIFEST, "job.yaml", offline_settings())
    assert brief(report.diagnostics) == ["1:1 note[not-a-recipe] apiVersion"]
    (note,) = report.diagnostics
    assert note.message == (
        "the file looks like a Kubernetes manifest (kind: Job), not an AutoModel recipe: "
        "nothing in it was checked"
    )
    assert note.hint == (
        "apply it with kubectl; to train on Kubernetes from a recipe, add skypilot: with "
        "cloud: kubernetes (launched here)"
    )
    assert report.ok and not report.failed(strict=True)


@pytest.mark.parametrize("purpose", ["render", "submit"])
def test_render_and_submit_refuse_it(purpose: str) -> None:
    result = load_text(MANIFEST, "job.yaml")
    report = validate_result(result, "job.yaml", offline_settings(), purpose=purpose)  # type: ignore[arg-type]
    assert brief(report.diagnostics) == ["1:1 error[not-a-recipe] apiVersion"]
    assert report.diagnostics[0].message.endswith(
        "not an AutoModel recipe: there is nothing to train"
    )
    assert report.document is None


def test_a_recipe_keeps_its_loader_checks() -> None:
    report = validate_text("model: {}\non: 1\n", "r.yaml", offline_settings())
    assert brief(report.diagnostics) == ["2:1 error[key-not-text] on"]


LAUNCHER_ONLY = {
    "slurm": "slurm:\n  nodes: 2\n",
    "skypilot": "skypilot:\n  cloud: aws\n",
}


@pytest.mark.parametrize("launcher", sorted(LAUNCHER_ONLY))
def test_a_launcher_section_alone_gets_a_note(launcher: str) -> None:
    report = validate_text("# kept apart\n" + LAUNCHER_ONLY[launcher], "l.yaml", offline_settings())
    assert brief(report.diagnostics) == [f"2:1 note[launcher-only] {launcher}"]
    (note,) = report.diagnostics
    assert note.message == (
        f"the file has a {launcher}: section and nothing to train: fine as a part of a recipe, "
        "but render and submit will need a recipe or --entry"
    )
    assert note.hint == (
        "add the recipe (recipe:, model:, dataset: ...), or run your own program with --entry"
    )
    assert not report.failed(strict=True)


@pytest.mark.parametrize(
    "text",
    [
        "recipe: R\nslurm:\n  nodes: 2\n",
        "step_scheduler: {max_steps: 3}\nslurm:\n  nodes: 2\n",
        "slurm:\n  nodes: 2\n  command: python train.py\n",
        "k8s:\n  num_nodes: 1\n",  # render refuses k8s: whatever the file holds
        "nemo_run:\n  executor: local\n",
        "model: {}\n",
    ],
)
def test_no_note_where_there_is_something_to_train(text: str) -> None:
    report = validate_text(text, "r.yaml", offline_settings())
    assert [d for d in report.diagnostics if d.code == "launcher-only"] == []


@pytest.mark.parametrize("purpose", ["render", "submit"])
def test_render_and_submit_get_no_note_their_refusal_is_nothing_to_train(purpose: str) -> None:
    result = load_text(LAUNCHER_ONLY["slurm"], "l.yaml")
    report = validate_result(result, "l.yaml", offline_settings(), purpose=purpose)  # type: ignore[arg-type]
    assert report.diagnostics == []


def test_a_lepton_section_is_a_note_and_no_recipe() -> None:
    text = textwrap.dedent(
        """\
        recipe: TrainFinetuneRecipeForNextTokenPrediction
        lepton:
          nodes: 1
        """
    )
    report = validate_text(text, "l.yaml", offline_settings())
    assert brief(report.diagnostics) == ["2:1 note[unreleased-launcher] lepton"]
    (note,) = report.diagnostics
    assert note.message == (
        "lepton: is launched neither by automodel-launch nor by any AutoModel release (its "
        "launcher never left a development branch): a released `automodel` ignores it"
    )
    assert note.hint is not None and "LeptonExecutor" in note.hint
    alone = validate_text("slurm:\n  nodes: 1\nlepton:\n  nodes: 1\n", "l.yaml", offline_settings())
    assert brief(alone.diagnostics) == [
        "1:1 note[launcher-only] slurm",
        "3:1 note[unreleased-launcher] lepton",
    ]

"""What AutoModel stops on as it starts, found on configs that crashed: each at the value
to change, in the release's own words, with the fix; and what it never launches."""

from __future__ import annotations

import pytest

from tests.conftest import Validate, brief

RECIPE = "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"


def only(found: list, code: str) -> list:  # type: ignore[type-arg]
    return [d for d in found if d.code == code]


# ------------------------------------------------------------------ pipeline parallelism
def pipeline(lbs: int | None, micro: int | None, pp: int = 4, section: str = "distributed") -> str:
    text = RECIPE + "step_scheduler:\n  global_batch_size: 64\n"
    text += f"  local_batch_size: {lbs}\n" if lbs is not None else ""
    text += f"distributed:\n  pp_size: {pp}\n"
    if micro is not None and section == "distributed":
        text += f"  pipeline:\n    pp_microbatch_size: {micro}\n"
    if micro is not None and section == "autopipeline":
        text = text.replace(
            "distributed:\n",
            "distributed:\n  _target_: nemo_automodel.components.distributed.fsdp2.FSDP2Manager\n",
        )
        text += f"autopipeline:\n  pp_microbatch_size: {micro}\n"
    return text


def test_fewer_micro_batches_than_stages_stops_at_startup(validate: Validate) -> None:
    (found,) = only(validate(pipeline(8, 4)), "pipeline-batch-too-small")
    assert brief([found]) == [
        "4:21 error[pipeline-batch-too-small] step_scheduler.local_batch_size"
    ]
    assert found.message == (
        "local_batch_size 8 // pp_microbatch_size 4 = 2 micro-batches for pp_size 4 stages: "
        'AutoModel 0.7.0 stops the job at startup ("pp_batch_size 8 // pp_microbatch_size 4 '
        'must be >= pp_size 4")'
    )
    assert found.hint == (
        "set step_scheduler.local_batch_size to 16 or more (pp_size 4 x pp_microbatch_size 4), "
        "or distributed.pipeline.pp_microbatch_size to 2"
    )


@pytest.mark.parametrize(
    ("text", "count"),
    [(pipeline(16, 4), 0), (pipeline(4, None), 0), (pipeline(None, 1), 1), (pipeline(3, 1), 1),
     (pipeline(3, 1, pp=1), 0), (pipeline("${LBS}", 1), 0)],  # type: ignore[arg-type]
)  # fmt: skip
def test_the_micro_batches_as_the_release_counts_them(
    validate: Validate, text: str, count: int
) -> None:
    assert len(only(validate(text), "pipeline-batch-too-small")) == count


def test_a_left_out_local_batch_size_is_one_and_the_error_is_at_the_micro_batch(
    validate: Validate,
) -> None:
    (found,) = only(validate(pipeline(None, 2, pp=2)), "pipeline-batch-too-small")
    assert found.path == "distributed.pipeline.pp_microbatch_size"
    assert (
        found.hint
        == "set step_scheduler.local_batch_size to 4 or more (pp_size 2 x pp_microbatch_size 2)"
    )


def test_release_0_2_0_reads_the_autopipeline_section_and_0_1_2_checks_nothing(
    validate: Validate,
) -> None:
    (found,) = only(
        validate(pipeline(2, 2, section="autopipeline"), automodel_version="0.2.0"),
        "pipeline-batch-too-small",
    )
    assert found.message.endswith('must be greater than or equal to pp_size 4")')
    assert found.path == "step_scheduler.local_batch_size"
    assert not only(validate(pipeline(2, 2), automodel_version="0.1.2"), "pipeline-batch-too-small")


# ------------------------------------------------------------------ a data set without a length
NANOGPT = "nemo_automodel.components.datasets.llm.nanogpt_dataset.NanogptDataset"


def unsized(steps: str = "", target: str = NANOGPT) -> str:
    data = f"dataset:\n  _target_: {target}\n  file_pattern: /d/*.bin\n  seq_len: 512\n"
    return RECIPE + "step_scheduler:\n  global_batch_size: 8\n" + steps + data


def test_an_iterable_data_set_without_max_steps_stops_the_scheduler(validate: Validate) -> None:
    (found,) = validate(unsized())
    assert brief([found]) == ["2:1 error[no-max-steps] step_scheduler"]
    assert found.message == (
        "NanogptDataset is a data set without a length (an iterable one), and step_scheduler "
        "sets no max_steps: AutoModel 0.7.0's StepScheduler stops the job at startup "
        '("epoch_len must be provided if max_steps is not provided")'
    )
    assert found.hint == "add max_steps: <optimizer steps to run> under step_scheduler"
    assert validate(unsized("  max_steps: 1000\n")) == []


@pytest.mark.parametrize(
    ("version", "target", "stops"),
    [
        ("0.7.0", "nemo_automodel.components.datasets.llm.mock_iterable_dataset."
         "MockIterableDataset", False),  # an iterable data set with a length
        ("0.7.0", "nemo_automodel.components.datasets.llm.column_mapped_text_instruction_"
         "iterable_dataset.ColumnMappedTextInstructionIterableDataset", True),
        ("0.1.2", NANOGPT, True),
        ("0.1.0", NANOGPT, False),  # max_steps defaulted to 2**63 - 1
    ],
)  # fmt: skip
def test_which_data_sets_have_no_length_is_the_releases(
    validate: Validate, version: str, target: str, stops: bool
) -> None:
    found = only(validate(unsized(target=target), automodel_version=version), "no-max-steps")
    assert bool(found) is stops


# ------------------------------------------------------------------ typed configs
def backend(keys: str, target: str = "") -> str:
    return (
        RECIPE + "model:\n  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained\n"
        "  pretrained_model_name_or_path: m\n  backend:\n" + target + keys
    )


def test_a_backend_mapping_is_built_as_backend_config(validate: Validate) -> None:
    (found,) = validate(backend("    attn: te\n    rms_nrom: te\n"))
    assert brief([found]) == ["7:5 error[unknown-argument] model.backend.rms_nrom"]
    assert found.message == (
        "model.backend (a mapping without _target_, which AutoModel 0.7.0 builds as "
        "BackendConfig) takes no argument 'rms_nrom': the job stops at startup with "
        "a TypeError"
    )
    assert found.hint == "did you mean 'rms_norm'?"
    assert validate(backend("    attn: te\n    rms_norm: te\n")) == []


def test_what_bagels_own_resolver_takes_passes_and_a_target_is_a_call(validate: Validate) -> None:
    assert validate(backend("    fused_swiglu: true\n")) == []  # BagelBackendConfig's
    older = validate(backend("    fused_swiglu: true\n"), automodel_version="0.5.0")
    assert [d.code for d in older] == ["unknown-argument"]  # no resolver of its own yet
    target = "    _target_: nemo_automodel.components.models.common.utils.BackendConfig\n"
    (found,) = validate(backend("    attnn: te\n", target=target))
    assert found.message.startswith(
        "nemo_automodel.components.models.common.utils.BackendConfig takes no argument 'attnn'"
    )


def test_before_0_4_0_a_backend_mapping_is_passed_as_it_is(validate: Validate) -> None:
    assert validate(backend("    anything: 1\n"), automodel_version="0.3.0") == []


# ------------------------------------------------------------------ what a recipe calls later
CROSS = "nemo_automodel.components.datasets.llm.CrossEncoderCollator"


def collate(target: str, keys: str = "") -> str:
    return (
        "recipe: TrainCrossEncoderRecipe\ndataloader:\n  collate_fn:\n"
        f"    _target_: {target}\n{keys}"
    )


def test_a_collate_class_gets_only_the_tokenizer_so_its_required_arguments_are_the_configs(
    validate: Validate,
) -> None:
    (found,) = validate(collate(CROSS, "    padding: longest\n"))
    assert brief([found]) == ["4:5 error[missing-argument] dataloader.collate_fn._target_"]
    assert found.message == (
        f"{CROSS} needs the argument 'rerank_max_length' in AutoModel 0.7.0, and neither "
        "dataloader.collate_fn nor AutoModel gives it: the job stops at startup with a TypeError"
    )
    assert validate(collate(CROSS, "    rerank_max_length: 512\n")) == []
    bi = "nemo_automodel.components.datasets.llm.BiEncoderCollator"
    assert validate(collate(bi)) == []  # the tokenizer is AutoModel's to give


def test_a_collate_function_is_called_later_with_what_its_recipe_passes(validate: Validate) -> None:
    function = "nemo_automodel.components.datasets.utils.default_collater"
    assert validate(collate(function)) == []
    audio = "nemo_automodel.components.datasets.audio.collate_fns.qwen3_omni_asr_collate_fn"
    assert validate(collate(audio)) == []  # the processor is its recipe's to pass


# ------------------------------------------------------------------ interpolations
@pytest.mark.parametrize(
    ("value", "version", "says"),
    [
        ("${oc.select:paths.cache,/tmp/hf}", "0.7.0",
         "AutoModel 0.7.0's loader has no 'oc.select' resolver: it reads "
         "'${oc.select:paths.cache,/tmp/hf}' as the environment variable "
         "'oc.select:paths.cache', which is never set, so the code receives the default '/tmp/hf'"),
        ("${oc.select:paths.cache}", "0.7.0",
         "AutoModel 0.7.0's loader has no 'oc.select' resolver: it reads "
         "'${oc.select:paths.cache}' as the environment variable 'oc.select:paths.cache', which "
         "is never set: the job stops at startup (KeyError)"),
        ("${model.pretrained_model_name_or_path}-ft", "0.4.0",
         "AutoModel 0.4.0's loader has no references to other keys: it reads "
         "'${model.pretrained_model_name_or_path}' as the environment variable "
         "'model.pretrained_model_name_or_path', and stops the job at startup where it is not "
         "set (KeyError)"),
        ("${oc.env:${USER},x}", "0.7.0",
         "AutoModel 0.7.0's loader does not resolve a resolver inside another: it reads "
         "'${oc.env:${USER}' as one environment variable and leaves the rest as text"),
        ("${now:%H}", "0.2.0",
         "AutoModel 0.2.0's loader resolves no interpolation: the code receives '${now:%H}' as "
         "written"),
    ],
)  # fmt: skip
def test_interpolations_the_loader_does_not_resolve(
    validate: Validate, value: str, version: str, says: str
) -> None:
    text = RECIPE + f"model:\n  pretrained_model_name_or_path: m\n  cache_dir: '{value}'\n"
    (found,) = validate(text, automodel_version=version)
    assert brief([found]) == ["4:14 warning[unresolved-interpolation] model.cache_dir"]
    assert found.message == says


@pytest.mark.parametrize("value", ["${HF_HOME}", "${HF_HOME,/tmp}", "${oc.env:HF_HOME,/tmp}"])
def test_environment_variables_are_what_it_resolves(validate: Validate, value: str) -> None:
    text = RECIPE + f"model:\n  cache_dir: '{value}'\n"
    assert only(validate(text), "unresolved-interpolation") == []


# ------------------------------------------------------------------ template tokens, k8s
@pytest.mark.parametrize(
    ("value", "placeholder"),
    [("__MODEL_PATH__", True), ("/data/__DATASET__/train", True), ("__init__", False),
     ("my__weird__name", False), ("__A__B", False)],
)  # fmt: skip
def test_a_templates_token_is_a_placeholder(
    validate: Validate, value: str, placeholder: bool
) -> None:
    found = only(validate(RECIPE + f"model:\n  path: '{value}'\n"), "placeholder-value")
    assert [d.message for d in found] == (
        [f"'{value}' looks like a placeholder copied from documentation"] if placeholder else []
    )


@pytest.mark.parametrize(
    ("version", "says"),
    [
        ("0.7.0", "AutoModel 0.7.0 reads only skypilot: and nemo_run:, so `automodel FILE` "
         "ignores k8s: and trains on the node it runs on"),
        ("0.3.0", "`automodel FILE` stops: AutoModel 0.3.0 raises NotImplementedError(\"kubernetes "
         'support is pending")'),
    ],
)  # fmt: skip
def test_no_release_launches_k8s(validate: Validate, version: str, says: str) -> None:
    (found,) = validate(RECIPE + "k8s:\n  num_nodes: 1\n", automodel_version=version)
    assert brief([found]) == ["2:1 warning[k8s-not-launched] k8s"]
    assert found.message == f"no AutoModel release launches a k8s: section: {says}"
    assert found.hint == "to run on Kubernetes, launch it here with skypilot: and cloud: kubernetes"

"""The recipe checked against the signatures of the release that runs it, on a small table
built here (the shipped tables are exercised by test_recipe_calls_tables.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.automodel import table as tables
from automodel_launch.automodel.table import Table
from automodel_launch.validation import validate_path
from tests.conftest import Validate, brief, offline_settings

SCHEDULER = "nemo_automodel.components.training.step_scheduler.StepScheduler"
AUTO_MODEL = "nemo_automodel._transformers.auto_model.NeMoAutoModelForCausalLM"
SQUAD = "nemo_automodel.components.datasets.llm.squad.make_squad_dataset"
MASKED_CE = "nemo_automodel.components.loss.masked_ce.MaskedCrossEntropy"
COLLATER = "nemo_automodel.components.datasets.utils.default_collater"
DIST = "nemo_automodel.components.distributed.config"
CHECKPOINTING = "nemo_automodel.components.checkpoint.config.CheckpointingConfig"
FT = "nemo_automodel.recipes.llm.train_ft.TrainFinetuneRecipeForNextTokenPrediction"
KD = "nemo_automodel.recipes.llm.kd.KnowledgeDistillationRecipeForNextTokenPrediction"
DIFFUSION = "nemo_automodel.recipes.diffusion.train.TrainDiffusionRecipe"


def small_table(version: str) -> Table:
    return Table(
        version=version,
        covers=("nemo_automodel",),
        callables={
            "torch.optim.adam.Adam": "params! lr betas eps weight_decay amsgrad",
            SCHEDULER: "global_batch_size! local_batch_size! dp_size! dataloader! "
            "ckpt_every_steps val_every_steps num_epochs max_steps",
            AUTO_MODEL: "**",
            f"{AUTO_MODEL}.from_pretrained": "pretrained_model_name_or_path! **",
            SQUAD: "tokenizer! dataset_name split seq_length limit_dataset_samples",
            MASKED_CE: "fp32_upcast ignore_index reduction",
            COLLATER: "batch! pad_seq_len_divisible",
            "torchdata.stateful_dataloader.StatefulDataLoader": "dataset! batch_size shuffle "
            "collate_fn num_workers",
            f"{DIST}.FSDP2Config": "dp_size tp_size cp_size",
            f"{DIST}.KDConfig": "teacher! dp_size",
            f"{DIST}.DDPConfig": "backend",
            CHECKPOINTING: "enabled checkpoint_dir is_async",
            "nemo_automodel.components.distributed.fsdp2.FSDP2Manager": "config! device_mesh!",
        },
        aliases={
            "torch.optim.Adam": "torch.optim.adam.Adam",
            "nemo_automodel.NeMoAutoModelForCausalLM": AUTO_MODEL,
        },
        recipes={
            FT: "TrainFinetuneRecipeForNextTokenPrediction",
            KD: KD.rsplit(".", 1)[-1],
            DIFFUSION: "TrainDiffusionRecipe",
        },
        sections={
            "*": {
                "checkpoint": {"target": CHECKPOINTING, "supplied": "restore_from"},
                "step_scheduler": {
                    "target": SCHEDULER,
                    "supplied": "dp_size dataloader restore_from",
                },
                "dataloader": {
                    "target": "torchdata.stateful_dataloader.StatefulDataLoader",
                    "supplied": "dataset dataloader_type",
                },
                "distributed": {
                    "target": f"{DIST}.FSDP2Config",
                    "supplied": "_target_ strategy",
                    "choose": "strategy",
                    "default": "fsdp2",
                    "choices": {"fsdp2": f"{DIST}.FSDP2Config", "ddp": f"{DIST}.DDPConfig"},
                },
            },
            KD: {"kd": {"target": f"{DIST}.KDConfig"}},
            DIFFUSION: {"checkpoint": None, "dataloader": None},
        },
        supplied=frozenset({"tokenizer", "params", "model"}),
    )


@pytest.fixture(autouse=True)
def _small_tables(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    loaded: list[str] = []

    def load(version: str) -> Table:
        loaded.append(version)
        return small_table(version)

    monkeypatch.setattr(tables, "load", load)
    return loaded


def test_a_keyword_the_callable_does_not_take_is_an_error_at_its_key(validate: Validate) -> None:
    diags = validate("""\
        optimizer:
          _target_: torch.optim.Adam
          lr: 1.0e-5
          weight_decy: 0.01
        """)
    assert brief(diags) == ["4:3 error[unknown-argument] optimizer.weight_decy"]
    assert diags[0].message == (
        "torch.optim.Adam takes no argument 'weight_decy' in AutoModel 0.7.0: the job stops "
        "at startup with a TypeError"
    )
    assert diags[0].hint == "did you mean 'weight_decay'?"


def test_the_message_names_the_release_checked_against(
    validate: Validate, _small_tables: list[str]
) -> None:
    diags = validate("optimizer:\n  _target_: torch.optim.Adam\n  weight_decy: 0\n",
                     automodel_version="0.5.0")  # fmt: skip
    assert "in AutoModel 0.5.0:" in diags[0].message
    assert _small_tables == ["0.5.0"]


def test_a_section_built_without_target_is_checked_against_its_builder(
    validate: Validate,
) -> None:
    diags = validate("""\
        step_scheduler:
          global_batch_size: 32
          local_batch_size: 4
          grad_acc_steps: 8
        """)
    assert brief(diags) == ["4:3 error[unknown-argument] step_scheduler.grad_acc_steps"]
    assert diags[0].message.startswith(
        "step_scheduler (built as StepScheduler) takes no argument 'grad_acc_steps' in "
        "AutoModel 0.7.0"
    )
    assert diags[0].hint == (
        "remove it: AutoModel accumulates global_batch_size / (local_batch_size x dp_size) "
        "micro-batches per step"
    )


def test_a_keyword_with_nothing_close_lists_what_the_callable_takes(validate: Validate) -> None:
    (diag,) = validate("step_scheduler:\n  global_batch_size: 8\n  local_batch_size: 1\n"
                       "  warmup: 3\n")  # fmt: skip
    assert diag.hint == (
        "StepScheduler takes: global_batch_size, local_batch_size, dp_size, dataloader, "
        "ckpt_every_steps, val_every_steps, num_epochs, max_steps"
    )


def test_a_key_the_recipe_reads_itself_is_no_argument(validate: Validate) -> None:
    assert validate("step_scheduler:\n  global_batch_size: 8\n  local_batch_size: 1\n"
                    "  restore_from: /ckpt\n") == []  # fmt: skip


def test_a_required_argument_nobody_gives_is_an_error(validate: Validate) -> None:
    diags = validate("""\
        step_scheduler:
          local_batch_size: 4
        model:
          _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
          torch_dtype: bfloat16
        """)
    assert brief(diags) == [
        "1:1 error[missing-argument] step_scheduler",
        "4:3 error[missing-argument] model._target_",
    ]
    assert diags[0].message == (
        "step_scheduler (built as StepScheduler) needs the argument 'global_batch_size' in "
        "AutoModel 0.7.0, and neither step_scheduler nor AutoModel gives it: the job stops at "
        "startup with a TypeError"
    )
    assert diags[0].hint == "add global_batch_size: <value> under step_scheduler"
    assert diags[1].message == (
        "nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained needs the argument "
        "'pretrained_model_name_or_path' in AutoModel 0.7.0, and neither model nor AutoModel "
        "gives it: the job stops at startup with a TypeError"
    )


def test_what_autoModel_supplies_and_var_keyword_accept_anything(validate: Validate) -> None:
    assert (
        validate("""\
        dataset:
          _target_: nemo_automodel.components.datasets.llm.squad.make_squad_dataset
          dataset_name: rajpurkar/squad
        model:
          _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
          pretrained_model_name_or_path: meta-llama/Llama-3.2-1B
          anything_at_all: 1
        optimizer:
          _target_: torch.optim.Adam
          lr: ${oc.env:LR,1e-5}
        """)
        == []
    )


def test_nested_and_listed_targets_are_checked_where_they_sit(validate: Validate) -> None:
    diags = validate("""\
        recipe: TrainFinetuneRecipeForNextTokenPrediction
        dataloader:
          _target_: torchdata.stateful_dataloader.StatefulDataLoader
          shuffle: true
          collate_fn:
            _target_: nemo_automodel.components.datasets.utils.default_collater
            pad_seq_len_divisble: 16
        callbacks:
          - _target_: torch.optim.Adam
            lr: 1
          - _target_: torch.optim.Adam
            lrr: 1
        """)
    # the collate function is called later with the batch: no missing 'batch'; the data
    # loader's dataset is what the recipe builds and passes
    assert brief(diags) == [
        "7:5 error[unknown-argument] dataloader.collate_fn.pad_seq_len_divisble",
        "12:5 error[unknown-argument] callbacks[1].lrr",
    ]
    assert diags[0].hint == "did you mean 'pad_seq_len_divisible'?"


def test_a_target_the_release_does_not_have_gets_did_you_mean(validate: Validate) -> None:
    diags = validate("""\
        model:
          _target_: nemo_automodel.NeMoAutoModelForCausalLm.from_pretrained
          pretrained_model_name_or_path: x
        loss_fn:
          _target_: nemo_automodel.components.loss.masked_ce.MaskedCrossEntropyLoss
        """)
    assert brief(diags) == [
        "2:13 error[unknown-target] model._target_",
        "5:13 error[unknown-target] loss_fn._target_",
    ]
    assert diags[0].message == (
        "AutoModel 0.7.0 has no 'nemo_automodel.NeMoAutoModelForCausalLm.from_pretrained': the "
        "job stops at startup with an ImportError"
    )
    assert (
        diags[0].hint == "did you mean 'nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained'?"
    )
    assert diags[1].hint == f"did you mean '{MASKED_CE}'?"


def test_an_abbreviated_path_gets_the_full_one(validate: Validate) -> None:
    diags = validate("""\
        loss_fn:
          _target_: masked_ce.MaskedCrossEntropyLoss
        other_loss:
          _target_: masked_ce.MaskedCrossEntropy
        """)
    assert brief(diags) == [
        "2:13 error[unknown-target] loss_fn._target_",
        "4:13 error[unknown-target] other_loss._target_",
    ]
    assert diags[0].message == (
        "'masked_ce.MaskedCrossEntropyLoss' cannot be imported: there is no module 'masked_ce' "
        f"beside the config or in the working directory; AutoModel 0.7.0 has it as '{MASKED_CE}'"
    )
    assert diags[0].hint == f"write the full path: {MASKED_CE}"


@pytest.mark.parametrize("module", ["masked_ce.py", "masked_ce/__init__.py"])
def test_a_module_beside_the_config_is_the_users_own(tmp_path: Path, module: str) -> None:
    config = tmp_path / "recipe.yaml"
    config.write_text("loss_fn:\n  _target_: masked_ce.MaskedCrossEntropy\n  anything: 1\n")
    assert brief(validate_path(config, offline_settings()).diagnostics) == [
        "2:13 error[unknown-target] loss_fn._target_"
    ]
    (tmp_path / module).parent.mkdir(exist_ok=True)
    (tmp_path / module).write_text("class MaskedCrossEntropy: ...\n")
    assert validate_path(config, offline_settings()).diagnostics == []


def test_a_module_in_the_working_directory_is_the_users_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validate: Validate
) -> None:
    (tmp_path / "masked_ce.py").write_text("class MaskedCrossEntropy: ...\n")
    monkeypatch.chdir(tmp_path)
    assert validate("loss_fn:\n  _target_: masked_ce.MaskedCrossEntropy\n") == []


@pytest.mark.parametrize(
    "target",
    [
        "flashoptim.FlashAdamW",  # another library: not guessed at
        "my_losses.Focal",  # user code, nothing listed is called that
        "torch.optim.SGD",  # torch is not covered by this table
        "${oc.env:LOSS}",  # a value, resolved when the job starts
        "losses/focal.py:Focal",  # AutoModel's file form
        "nemo_automodel.x.py:Cls",  # the file form too, whatever the file is called
        "nemo_automodel.${VARIANT}",
        "nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained",
    ],
)
def test_targets_outside_the_table_are_not_guessed_at(validate: Validate, target: str) -> None:
    assert validate(f"thing:\n  _target_: '{target}'\n  no_such_argument: 1\n  "
                    "pretrained_model_name_or_path: x\n") == []  # fmt: skip


def test_a_fn_key_names_something_imported_as_the_file_is_read(validate: Validate) -> None:
    diags = validate("""\
        dataloader:
          collate_fn: nemo_automodel.components.datasets.utils.default_collator
        other:
          collate_fn: nemo_automodel.components.datasets.utils.default_collater
          parallelize_fn: my_code.parallelize
        """)
    assert brief(diags) == ["2:15 error[unknown-target] dataloader.collate_fn"]
    assert diags[0].hint == (
        "did you mean 'nemo_automodel.components.datasets.utils.default_collater'?"
    )


@pytest.mark.parametrize(
    ("recipe", "hint"),
    [
        ("TrainFinetuneRecipeForNextTokenPredictio", "TrainFinetuneRecipeForNextTokenPrediction"),
        ("nemo_automodel.recipes.llm.train.TrainFinetuneRecipeForNextTokenPrediction", FT),
        ("{_target_: TrainFinetuneRecipeForNextTokenPredictio}",
         "TrainFinetuneRecipeForNextTokenPrediction"),
    ],
)  # fmt: skip
def test_a_recipe_the_release_does_not_have(validate: Validate, recipe: str, hint: str) -> None:
    diags = validate(f"recipe: {recipe}\n")
    assert [d.code for d in diags] == ["unknown-recipe"]
    assert diags[0].line == 1
    assert diags[0].message.startswith("AutoModel 0.7.0 has no recipe '")
    assert diags[0].hint == f"did you mean '{hint}'?"


def test_an_unknown_recipe_with_nothing_close_lists_the_recipes(validate: Validate) -> None:
    (diag,) = validate("recipe: Pretrain\n")
    assert diag.hint == (
        "recipes: KnowledgeDistillationRecipeForNextTokenPrediction, TrainDiffusionRecipe, "
        "TrainFinetuneRecipeForNextTokenPrediction"
    )


@pytest.mark.parametrize(
    ("recipe", "version"),
    [
        ("TrainFinetuneRecipeForNextTokenPrediction", "0.7.0"),
        (FT, "0.7.0"),
        (f"{{_target_: {FT}}}", "0.7.0"),
        ("my_recipes.train.MyRecipe", "0.7.0"),  # the user's own class
        ("NoSuchRecipe", "0.3.0"),  # that release's CLI does not read recipe:
        ("${RECIPE}", "0.7.0"),
    ],
)
def test_recipes_that_are_fine(validate: Validate, recipe: str, version: str) -> None:
    assert validate(f"recipe: {recipe}\n", automodel_version=version) == []


def test_the_recipe_picks_the_sections_it_builds(validate: Validate) -> None:
    text = "recipe: {recipe}\nkd:\n  dp_size: 2\n"
    assert validate(text.format(recipe="TrainFinetuneRecipeForNextTokenPrediction")) == []
    diags = validate(text.format(recipe=KD))
    assert brief(diags) == ["2:1 error[missing-argument] kd"]
    assert "kd (built as KDConfig) needs the argument 'teacher'" in diags[0].message


def test_the_table_is_not_loaded_without_a_recipe_section(
    validate: Validate, _small_tables: list[str]
) -> None:
    assert validate("slurm:\n  nodes: 1\n  time: '1:00:00'\nseed: 3\n") == []
    assert _small_tables == []
    validate("step_scheduler:\n  global_batch_size: 8\n  local_batch_size: 1\n")
    assert _small_tables == ["0.7.0"]


def test_launcher_sections_are_not_recipe_calls(validate: Validate) -> None:
    diags = validate("""\
        slurm:
          nodes: 1
          time: '1:00:00'
          env_vars:
            _target_: nemo_automodel.NoSuch
        """)
    assert "unknown-target" not in [d.code for d in diags]


def test_a_section_whose_class_a_key_picks_is_checked_against_that_class(
    validate: Validate,
) -> None:
    assert validate("distributed:\n  strategy: fsdp2\n  tp_size: 2\n") == []
    diags = validate("distributed:\n  strategy: ddp\n  tp_size: 2\n")
    # (the startup-size rule also says ddp refuses tp: this rule's own finding is the one)
    diags = [d for d in diags if d.code == "unknown-argument"]
    assert brief(diags) == ["3:3 error[unknown-argument] distributed.tp_size"]
    assert diags[0].message.startswith(
        "distributed (built as DDPConfig) takes no argument 'tp_size' in AutoModel 0.7.0"
    )
    # a strategy AutoModel refuses is not this rule's to judge
    assert validate("distributed:\n  strategy: zero3\n  tp_size: 2\n") == []


def test_a_target_the_recipe_drops_is_still_imported_but_not_called(validate: Validate) -> None:
    fsdp2 = "nemo_automodel.components.distributed.fsdp2.FSDP2Manager"
    assert validate(f"distributed:\n  _target_: {fsdp2}\n  tp_size: 2\n") == []
    diags = validate("distributed:\n  _target_: nemo_automodel.components.distributed.No\n"
                     "  tp_sise: 2\n")  # fmt: skip
    assert brief(diags) == [
        "2:13 error[unknown-target] distributed._target_",
        "3:3 error[unknown-argument] distributed.tp_sise",
    ]


def test_a_section_the_recipe_reads_key_by_key_is_not_a_call(validate: Validate) -> None:
    text = "recipe: {}\ncheckpoint:\n  enabled: true\n  keep_last: 3\n"
    assert validate(text.format("TrainDiffusionRecipe")) == []
    diags = validate(text.format("TrainFinetuneRecipeForNextTokenPrediction"))
    assert brief(diags) == ["4:3 error[unknown-argument] checkpoint.keep_last"]
    # no recipe named (an example script picks it): a section some recipe reads its own
    # way is not judged
    assert validate(text.split("\n", 1)[1]) == []


def test_a_target_with_nothing_close_gets_no_guess(validate: Validate) -> None:
    (diag,) = validate("loss_fn:\n  _target_: nemo_automodel.qqqqqq.wwwwww\n")
    assert diag.code == "unknown-target" and diag.hint is None


def test_an_abbreviation_names_its_first_part_as_the_missing_module(validate: Validate) -> None:
    (diag,) = validate("loss_fn:\n  _target_: loss.masked_ce.MaskedCrossEntropy\n")
    assert diag.message.startswith(
        "'loss.masked_ce.MaskedCrossEntropy' cannot be imported: there is no module 'loss' "
    )


def _with_arguments(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    def load(version: str) -> Table:
        t = small_table(version)
        t.callables["nemo_automodel.Many"] = " ".join(f"a{i}" for i in range(count))
        t.recipes = {f"r.m.R{i}": f"R{i}" for i in range(count)}
        return t

    monkeypatch.setattr(tables, "load", load)


@pytest.mark.parametrize(("count", "more"), [(12, ""), (13, ", ...")])
def test_hints_list_at_most_twelve_names(
    validate: Validate, monkeypatch: pytest.MonkeyPatch, count: int, more: str
) -> None:
    _with_arguments(monkeypatch, count)
    twelve = ", ".join(f"a{i}" for i in range(12))
    (diag,) = validate("x:\n  _target_: nemo_automodel.Many\n  zzzzzz: 1\n")
    assert diag.hint == f"Many takes: {twelve}{more}"
    (diag,) = validate("recipe: Q\n")
    recipes = sorted(f"R{i}" for i in range(count))
    assert diag.hint == "recipes: " + ", ".join(recipes[:12]) + more


def test_a_callable_without_keywords_says_so(
    validate: Validate, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with_arguments(monkeypatch, 0)
    (diag,) = validate("x:\n  _target_: nemo_automodel.Many\n  zzzzzz: 1\n")
    assert diag.hint == "Many takes no keyword arguments"


def test_a_nested_target_is_called_with_its_keys_too(validate: Validate) -> None:
    diags = validate("""\
        model:
          _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
          pretrained_model_name_or_path: x
          loss:
            _target_: nemo_automodel.components.datasets.utils.default_collater
        """)
    assert brief(diags) == ["5:5 error[missing-argument] model.loss._target_"]

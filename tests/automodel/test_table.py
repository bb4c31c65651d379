"""The table's reader: aliases, classes open to outside attributes, sections per recipe."""

from __future__ import annotations

from automodel_launch.automodel import table
from automodel_launch.automodel.table import SectionBuild, Table


def small() -> Table:
    return Table(
        version="x",
        covers=("pkg",),
        callables={
            "pkg.auto.Auto": "**",
            "pkg.auto.Auto.from_pretrained": "pretrained_model_name_or_path! **",
            "pkg.sched.StepScheduler": "global_batch_size! dp_size! max_steps",
            "pkg.dist.FSDP2Config": "sequence_parallel",
            "pkg.dist.DDPConfig": "",
        },
        aliases={"pkg.Auto": "pkg.auto.Auto", "pkg.Again": "pkg.Auto"},
        recipes={
            "pkg.recipes.a.TrainRecipe": "TrainRecipe",
            "pkg.recipes.b.GenRecipe": "GenRecipe",
        },
        sections={
            "*": {
                "step_scheduler": {"target": "pkg.sched.StepScheduler", "supplied": "dp_size"},
                "distributed": {
                    "target": "pkg.dist.FSDP2Config",
                    "supplied": "_target_ strategy tp_size",
                    "choose": "strategy",
                    "default": "fsdp2",
                    "choices": {"fsdp2": "pkg.dist.FSDP2Config", "ddp": "pkg.dist.DDPConfig"},
                },
            },
            "pkg.recipes.b.GenRecipe": {"step_scheduler": None},
        },
        supplied=frozenset({"tokenizer"}),
        open=frozenset({"pkg.auto.Auto"}),
    )


def test_a_method_resolves_through_the_alias_of_its_class() -> None:
    t = small()
    assert t.resolve("pkg.Again.from_pretrained") == "pkg.auto.Auto.from_pretrained"
    assert t.resolve("pkg.Auto.from_pretrain") is None
    assert t.resolve("pkg.sched.StepScheduler.from_pretrained") is None


def test_a_name_under_an_open_class_is_not_known_to_be_missing() -> None:
    t = small()
    assert not t.covered("pkg.Auto.from_config")
    assert not t.covered("pkg.auto.Auto.register")
    assert t.covered("pkg.sched.StepSchedulr")
    assert t.covered("pkg.sched.StepScheduler.build")
    assert not t.covered("other.Thing")


def test_a_recipe_that_reads_a_section_key_by_key_has_no_build_for_it() -> None:
    t = small()
    built = t.section("pkg.recipes.a.TrainRecipe", "step_scheduler")
    assert built == SectionBuild("pkg.sched.StepScheduler", frozenset({"dp_size"}))
    assert t.section("pkg.recipes.b.GenRecipe", "step_scheduler") is None
    assert t.section(None, "step_scheduler") == built
    assert t.section(None, "peft") is None


def test_the_strategy_picks_the_class_of_the_distributed_section() -> None:
    built = small().section(None, "distributed")
    assert built is not None
    assert (built.choose, built.default, built.target) == (
        "strategy",
        "fsdp2",
        "pkg.dist.FSDP2Config",
    )
    assert built.target_for("ddp") == "pkg.dist.DDPConfig"
    assert built.target_for(None) == "pkg.dist.FSDP2Config"
    assert built.target_for("fsdp1") is None


def test_every_known_version_loads_with_its_recipes_and_sections() -> None:
    for version in ("0.1.0", "0.4.0", "0.7.0", "main"):
        t = table.load(version)
        assert t.resolve("torch.optim.AdamW") == "torch.optim.adamw.AdamW"
        scheduler = t.section(None, "step_scheduler")
        assert scheduler is not None and "grad_acc_steps" not in t.signature(scheduler.target).names  # type: ignore[union-attr]
    assert table.load("0.4.0").recipe("TrainFinetuneRecipeForNextTokenPrediction") == (
        "nemo_automodel.recipes.llm.train_ft.TrainFinetuneRecipeForNextTokenPrediction"
    )
    assert table.load("0.1.0").section(None, "distributed") is None
    assert table.load("0.7.0").resolve(
        "nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained"
    ) == ("nemo_automodel._transformers.auto_model.NeMoAutoModelForCausalLM.from_pretrained")

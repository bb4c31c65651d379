"""The table's reader: aliases, classes open to outside attributes, sections per recipe."""

from __future__ import annotations

import itertools

import pytest

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


def test_a_signature_text_reads_as_required_optional_and_any_keyword() -> None:
    sig = table.parse_signature("pkg.f", "a! b c! **")
    assert (sig.target, sig.required, sig.optional, sig.var_keyword) == (
        "pkg.f",
        ("a", "c"),
        ("b",),
        True,
    )
    assert sig.names == ("a", "c", "b")
    assert sig.accepts("anything")
    closed = table.parse_signature("pkg.g", "x! y")
    assert (closed.required, closed.optional, closed.var_keyword) == (("x",), ("y",), False)
    assert closed.accepts("x") and closed.accepts("y") and not closed.accepts("z")
    assert table.parse_signature("pkg.h", "") == table.Signature("pkg.h", (), (), False)


def test_a_signature_is_parsed_once_and_found_through_aliases() -> None:
    t = small()
    first = t.signature("pkg.Again.from_pretrained")
    assert first is t.signature("pkg.auto.Auto.from_pretrained")
    assert first == table.Signature(
        "pkg.auto.Auto.from_pretrained", ("pretrained_model_name_or_path",), (), True
    )
    assert t.signature("pkg.Nothing") is None


def test_an_alias_loop_resolves_to_nothing() -> None:
    t = small()
    t.aliases.update({"pkg.A": "pkg.B", "pkg.B": "pkg.A"})
    assert t.resolve("pkg.A") is None
    assert t.resolve("pkg.A.method") is None


def test_a_mistyped_target_gets_the_listed_name_it_was_meant_to_be() -> None:
    t = small()
    # same last part: the shortest path that has it
    assert t.suggest("pkg.other.StepScheduler") == "pkg.sched.StepScheduler"
    assert t.suggest("nothing.Auto") == "pkg.Auto"
    # else the closest whole name, if close enough
    assert t.suggest("pkg.sched.StepSchedular") == "pkg.sched.StepScheduler"
    assert t.suggest("pkg.dist.FSDP2Confg") == "pkg.dist.FSDP2Config"
    assert t.suggest("pkg.q") is None
    assert t.suggest("totally.Different") is None


def test_a_recipe_name_is_a_path_or_a_bare_name_that_only_one_recipe_has() -> None:
    t = small()
    assert t.recipe("pkg.recipes.a.TrainRecipe") == "pkg.recipes.a.TrainRecipe"
    assert t.recipe("TrainRecipe") == "pkg.recipes.a.TrainRecipe"
    assert t.recipe("NoSuchRecipe") is None
    t.recipes["pkg.recipes.c.TrainRecipe"] = "TrainRecipe"
    assert t.recipe("TrainRecipe") is None


def test_a_table_of_another_format_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "FORMAT", 2)
    with pytest.raises(ValueError) as raised:
        table._read("0.7.0")
    assert str(raised.value) == "releases/0.7.0.json: format 1, not 2"


def test_a_release_table_merges_the_third_party_one_and_keeps_its_own_first() -> None:
    t = table.load("0.7.0")
    own = table._read("0.7.0")
    other = table._read("thirdparty")
    assert t.version == "0.7.0"
    assert t.covers == (*own["covers"], *other["covers"])
    assert set(t.callables) == set(own["callables"]) | set(other["callables"])
    assert set(t.aliases) == set(own["aliases"]) | set(other["aliases"])
    assert t.recipes == own["recipes"] and t.sections == own["sections"]
    assert t.supplied == frozenset(own["supplied"].split())
    assert t.open == frozenset(own["open"]) | frozenset(other["open"])


def test_an_alias_chain_is_followed_eight_links_deep() -> None:
    t = small()
    chain = [f"pkg.link{n}" for n in range(10)]
    for here, there in itertools.pairwise(chain):
        t.aliases[here] = there
    t.aliases[chain[-1]] = "pkg.sched.StepScheduler"
    assert t.resolve("pkg.link2") == "pkg.sched.StepScheduler"  # 8 links
    assert t.resolve("pkg.link1") is None  # 9 links: not followed


def test_the_shortest_listed_name_with_the_same_last_part_is_suggested() -> None:
    t = small()
    t.callables["pkg.x.Loss"] = ""
    t.aliases["a.long.path.Loss"] = "pkg.x.Loss"
    assert t.suggest("Loss") == "pkg.x.Loss"
    assert t.suggest("x.y.z.Loss") == "pkg.x.Loss"
    assert t.suggest("far.away.module.StepScheduler") == "pkg.sched.StepScheduler"


def test_a_section_build_without_supplied_keywords_supplies_none() -> None:
    t = small()
    t.sections["*"]["checkpoint"] = {"target": "pkg.dist.DDPConfig"}
    assert t.section(None, "checkpoint") == SectionBuild("pkg.dist.DDPConfig", frozenset())


def test_a_table_read_from_a_tree_merges_the_third_party_one_under_its_own() -> None:
    own = table.read_data("0.7.0")
    other = table.read_data("thirdparty")
    t = table.from_data("0.7.0", own)  # not load(): its answer is cached
    assert t.version == "0.7.0"
    assert t.covers == (*own["covers"], *other["covers"])
    assert t.callables == {**other["callables"], **own["callables"]}
    assert t.aliases == {**other["aliases"], **own["aliases"]}
    assert (t.recipes, t.sections) == (own["recipes"], own["sections"])
    assert t.supplied == frozenset(own["supplied"].split())
    assert t.open == frozenset(own["open"]) | frozenset(other["open"])
    assert t.unsized == frozenset(own["unsized"]) and t.unsized
    assert t.typed == own["typed"] and t.typed
    assert t.nemo_run_refuses is True


def test_a_tree_that_read_nothing_is_the_third_party_table_alone() -> None:
    other = table.read_data("thirdparty")
    t = table.from_data("main", {})
    assert t.version == "main"
    assert t.covers == tuple(other["covers"])
    assert (t.callables, t.aliases) == (other["callables"], other["aliases"])
    assert (t.recipes, t.sections, t.typed) == ({}, {}, {})
    assert (t.supplied, t.unsized) == (frozenset(), frozenset())
    assert t.open == frozenset(other["open"])
    assert t.nemo_run_refuses is None


def test_a_name_under_an_open_top_level_owner_is_not_known_to_be_missing() -> None:
    t = small()
    t.open = frozenset({"pkg"})
    assert not t.covered("pkg.Anything")
    assert not t.covered("pkg.sched.Thing")

"""Looking names up in one release's table: re-exports, did-you-mean, abbreviations."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.automodel.table import Table
from automodel_launch.rules import recipe_names
from tests.rules.test_recipe_calls import AUTO_MODEL, COLLATER, FT, KD, MASKED_CE, small_table

TABLE = small_table("0.7.0")
NOWHERE: tuple[Path, ...] = ()


def table(**changes: object) -> Table:
    fields = {
        "version": "0.7.0",
        "covers": ("pkg",),
        "callables": {"pkg.mod.Cls": "a! b", "pkg.mod.Cls.make": "x **", "pkg.deep.sub.fn": ""},
        "aliases": {"pkg.Cls": "pkg.mod.Cls", "pkg.Short": "pkg.deep.sub.fn"},
        "recipes": {},
        "sections": {},
        "supplied": frozenset(),
    } | changes
    return Table(**fields)  # type: ignore[arg-type]


def test_a_method_through_a_reexported_class_has_the_class_signature() -> None:
    sig = recipe_names.signature(table(), "pkg.Cls.make")
    assert sig is not None and sig.target == "pkg.mod.Cls.make" and sig.var_keyword
    assert recipe_names.signature(table(), "pkg.Cls") is not None
    assert recipe_names.signature(table(), "pkg.Cls.nope") is None
    assert recipe_names.signature(table(), "pkg.mod.Cls.nope") is None  # no re-export there
    assert recipe_names.signature(table(), "other.Cls.make") is None


def test_a_deeper_reexport_resolves_from_the_longest_known_prefix() -> None:
    t = table(callables={"pkg.mod.Cls": "", "pkg.mod.Cls.Inner.make": "y!"},
              aliases={"pkg.Cls": "pkg.mod.Cls"})  # fmt: skip
    sig = recipe_names.signature(t, "pkg.Cls.Inner.make")
    assert sig is not None and sig.required == ("y",)


def test_a_mistyped_target_is_respelled_part_by_part() -> None:
    assert recipe_names.suggest_target(table(), "pkg.cls.make") == "pkg.Cls.make"
    assert recipe_names.suggest_target(table(), "pkg.mod.Clss") == "pkg.mod.Cls"
    assert recipe_names.suggest_target(table(), "pkg.dep.sub.fn") == "pkg.deep.sub.fn"
    assert (
        recipe_names.suggest_target(
            TABLE, "nemo_automodel.NeMoAutoModelForCausalLm.from_pretrained"
        )
        == "nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained"
    )


def test_without_a_respelling_the_same_last_part_then_the_closest_name() -> None:
    # nothing close to 'zzz' at the second part: the name with the same last part
    assert recipe_names.suggest_target(table(), "pkg.zzz.make") == "pkg.mod.Cls.make"
    assert recipe_names.suggest_target(TABLE, "torch.optim.Adamw") == "torch.optim.Adam"
    assert recipe_names.suggest_target(table(), "pkg.qqqqq.wwwww") is None


def test_the_same_last_part_prefers_the_closest_then_the_shortest() -> None:
    t = table(callables={"a.b.fn": "", "a.bbbbbbbb.fn": "", "zz.q.fn": ""}, aliases={})
    assert recipe_names.suggest_target(t, "x.b.fn") == "a.b.fn"


@pytest.mark.parametrize(
    ("target", "full"),
    [
        ("masked_ce.MaskedCrossEntropy", MASKED_CE),
        ("loss.masked_ce.MaskedCrossEntropy", MASKED_CE),
        ("masked_ce.MaskedCrossEntropyLoss", MASKED_CE),
        ("utils.default_collater", COLLATER),
        ("train_ft.TrainFinetuneRecipeForNextTokenPrediction", None),  # a recipe, not listed
        ("masked_ce.Unrelated", None),
        ("nowhere.MaskedCrossEntropy", None),
        ("torch.MaskedCrossEntropy", None),  # a package the table knows: not an abbreviation
        ("MaskedCrossEntropy", None),
        ("masked-ce.MaskedCrossEntropy", None),
    ],
)
def test_an_abbreviation_of_a_listed_callable(target: str, full: str | None) -> None:
    assert recipe_names.abbreviation(TABLE, target, lambda: NOWHERE) == full


def test_the_shortest_full_path_wins_and_places_are_looked_at_last(tmp_path: Path) -> None:
    t = table(callables={"pkg.a.m.F": "", "pkg.b.c.m.F": ""}, aliases={})
    asked: list[int] = []

    def places() -> tuple[Path, ...]:
        asked.append(1)
        return (tmp_path,)

    assert recipe_names.abbreviation(t, "m.F", places) == "pkg.a.m.F"
    assert recipe_names.abbreviation(t, "pkg.F", places) is None
    assert asked == [1]
    (tmp_path / "m.py").write_text("")
    assert recipe_names.abbreviation(t, "m.F", places) is None
    (tmp_path / "m.py").unlink()
    (tmp_path / "m").mkdir()
    assert recipe_names.abbreviation(t, "m.F", places) is None


def test_the_covered_packages_heads_are_no_abbreviations() -> None:
    t = table(covers=("lib.sub",), callables={"pkg.lib.F": ""}, aliases={})
    assert recipe_names.abbreviation(t, "lib.F", lambda: NOWHERE) is None
    t = table(covers=(), callables={"pkg.lib.F": ""}, aliases={})
    assert recipe_names.abbreviation(t, "lib.F", lambda: NOWHERE) == "pkg.lib.F"


@pytest.mark.parametrize(
    ("name", "suggested"),
    [
        ("TrainFinetuneRecipeForNextTokenPredictio", "TrainFinetuneRecipeForNextTokenPrediction"),
        ("Pretrain", None),
        ("nemo_automodel.recipes.llm.train.TrainFinetuneRecipeForNextTokenPrediction", FT),
        ("nemo_automodel.recipes.llm.kd.KnowledgeDistillationRecipeForNextTokenPredictio", KD),
        ("my.own.Pretrain", None),
    ],
)
def test_a_recipe_suggestion_is_written_as_the_name_was(name: str, suggested: str | None) -> None:
    assert recipe_names.suggest_recipe(TABLE, name) == suggested


def test_a_recipe_path_with_a_known_class_takes_the_closest_module() -> None:
    t = table(recipes={"r.llm.ft.Cls": "Cls", "r.vlm.finetune.Cls": "Cls"})
    assert recipe_names.suggest_recipe(t, "r.vlm.finetun.Cls") == "r.vlm.finetune.Cls"
    assert recipe_names.suggest_recipe(t, "r.llm.f.Cls") == "r.llm.ft.Cls"


def test_a_keyword_suggestion_must_be_close() -> None:
    names = ("weight_decay", "max_steps", "lr")
    assert recipe_names.suggest_keyword("weight_decy", names) == "weight_decay"
    assert recipe_names.suggest_keyword("grad_acc_steps", names) is None
    assert recipe_names.suggest_keyword("max_step", names) == "max_steps"


def test_the_index_is_one_per_table_and_knows_prefixes() -> None:
    t = table()
    index = recipe_names._index(t)
    assert recipe_names._index(t) is index
    assert recipe_names._index(table()) is not index
    assert index.known("pkg") and index.known("pkg.mod") and index.known("pkg.Cls")
    assert not index.known("pkg.mo") and not index.known("pkg.mod.Cls.make.x")
    assert index.tops == frozenset({"pkg"})
    assert index.by_module["mod"] == ["pkg.mod.Cls"]
    assert index.by_module["Cls"] == ["pkg.mod.Cls.make", "pkg.Cls"][:1]
    assert AUTO_MODEL.rsplit(".", 1)[-1] in recipe_names._index(TABLE).children("nemo_automodel")
    assert index.children("") == frozenset({"pkg"})
    assert index.children("pkg") == frozenset({"mod", "Cls", "deep", "Short"})
    assert index.children("pkg.mo") == frozenset()  # a prefix of a part is no parent

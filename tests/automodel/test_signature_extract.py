"""The ast extractor on small packages: what a config key can fill, and what it cannot."""

from __future__ import annotations

import textwrap

import pytest

from automodel_launch.automodel.extract import builds, sections
from automodel_launch.automodel.extract import signatures as extract


def index(**files: str) -> object:
    """``pkg__sub__mod="..."`` is ``pkg/sub/mod.py``; ``pkg__init`` is ``pkg/__init__.py``."""
    sources = {}
    for key, text in files.items():
        parts = ["__init__" if part == "init" else part for part in key.split("__")]
        sources["/".join(parts) + ".py"] = textwrap.dedent(text)
    return extract.Index(sources, "pkg")


def table(**files: str) -> tuple[dict[str, str], dict[str, str], list[str]]:
    return index(**files).table()  # type: ignore[attr-defined, no-any-return]


def test_a_function_lists_its_keywords_and_leaves_out_what_a_keyword_cannot_fill() -> None:
    callables, _, _ = table(
        pkg__mod="""
        def build(a, /, b, c=1, *args, d, e=2, **kwargs):
            pass

        def closed(x, y=None):
            pass

        def _private(z):
            pass
        """
    )
    assert callables == {"pkg.mod.build": "b! c d! e **", "pkg.mod.closed": "x! y"}


def test_a_class_is_its_init_without_self() -> None:
    callables, _, opened = table(
        pkg__mod="""
        class Loss:
            def __init__(self, ignore_index=-100, *, reduction="mean"):
                pass
        """
    )
    assert callables == {"pkg.mod.Loss": "ignore_index reduction"}
    assert opened == []


def test_a_dataclass_is_its_fields_bases_first_without_classvars_or_init_false() -> None:
    callables, _, _ = table(
        pkg__mod="""
        from dataclasses import dataclass, field
        from typing import ClassVar

        @dataclass
        class Base:
            size: int
            name: str = "x"

        @dataclass(frozen=True)
        class Child(Base):
            KIND: ClassVar[str] = "child"
            tags: list = field(default_factory=list)
            cache: dict = field(init=False, default_factory=dict)
            needed: int = field()
        """
    )
    assert callables["pkg.mod.Base"] == "size! name"
    assert callables["pkg.mod.Child"] == "size! name tags needed!"


def test_an_inherited_init_is_followed_through_imports_inside_the_package() -> None:
    callables, _, _ = table(
        pkg__base="""
        class Base:
            def __init__(self, seed, ranked=False):
                pass
        """,
        pkg__mod="""
        from .base import Base
        from pkg import base as b

        class Child(Base):
            pass

        class Grandchild(b.Base):
            def helper(self):
                pass
        """,
    )
    assert callables["pkg.mod.Child"] == "seed! ranked"
    assert callables["pkg.mod.Grandchild"] == "seed! ranked"


def test_an_init_from_outside_the_package_takes_anything_and_the_class_is_open() -> None:
    callables, _, opened = table(
        pkg__mod="""
        import torch
        from abc import ABC
        from typing import Generic, TypeVar

        T = TypeVar("T")

        class Module(torch.nn.Module):
            def forward(self, x):
                return x

        class Plain(ABC, Generic[T]):
            pass
        """
    )
    assert callables["pkg.mod.Module"] == "**"
    assert callables["pkg.mod.Plain"] == ""
    assert opened == ["pkg.mod.Module"]


def test_classmethods_and_staticmethods_are_listed_inherited_ones_too() -> None:
    callables, _, _ = table(
        pkg__auto="""
        class _Base:
            @classmethod
            def from_pretrained(cls, pretrained_model_name_or_path, *args, dtype="auto", **kw):
                pass

            @staticmethod
            def build(config):
                pass

            @classmethod
            def _hidden(cls):
                pass

            def instance_method(self, x):
                pass

        class AutoModel(_Base):
            @classmethod
            def from_config(cls, config, *, trust_remote_code=False):
                pass
        """
    )
    assert callables == {
        "pkg.auto.AutoModel": "",
        "pkg.auto.AutoModel.from_pretrained": "pretrained_model_name_or_path! dtype **",
        "pkg.auto.AutoModel.build": "config!",
        "pkg.auto.AutoModel.from_config": "config! trust_remote_code",
    }


def test_reexports_lazy_maps_and_assignments_are_aliases_to_the_definition() -> None:
    _, aliases, _ = table(
        pkg__init="""
        from .inner.mod import Loss
        from pkg.inner.mod import make as make_it

        _LAZY_ATTRS = {"Auto": ("pkg.inner.mod", "Auto"), "Rel": (".inner.mod", "make")}

        def __getattr__(name):
            pass
        """,
        pkg__inner__init="",
        pkg__inner__mod="""
        class Loss:
            pass

        class Auto:
            pass

        def make(x):
            pass

        OldLoss = Loss
        """,
    )
    assert aliases == {
        "pkg.Loss": "pkg.inner.mod.Loss",
        "pkg.make_it": "pkg.inner.mod.make",
        "pkg.Auto": "pkg.inner.mod.Auto",
        "pkg.Rel": "pkg.inner.mod.make",
        "pkg.inner.mod.OldLoss": "pkg.inner.mod.Loss",
    }


def test_a_partial_takes_anything_and_an_overload_is_not_the_definition() -> None:
    callables, _, _ = table(
        pkg__mod="""
        import functools
        from typing import overload

        def collate(batch, pad=0):
            pass

        padded = functools.partial(collate, pad=8)

        @overload
        def f(a: int) -> int: ...
        def f(a, b=None):
            pass
        """
    )
    assert callables["pkg.mod.padded"] == "**"
    assert callables["pkg.mod.f"] == "a! b"


def test_a_pydantic_model_ignores_unknown_fields_unless_it_forbids_them() -> None:
    callables, _, _ = table(
        pkg__mod="""
        from pydantic import BaseModel, ConfigDict, Field

        class Loose(BaseModel):
            lr: float
            steps: int = 10
            name: str = Field("x")

        class Strict(BaseModel):
            model_config = ConfigDict(extra="forbid")
            lr: float = Field(default=0.1)
        """
    )
    assert callables["pkg.mod.Loose"] == "lr! steps name **"
    assert callables["pkg.mod.Strict"] == "lr"


def test_the_recipe_builds_its_sections_with_the_keywords_it_supplies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    idx = index(
        pkg__sched="""
        class StepScheduler:
            def __init__(self, global_batch_size, dp_size, dataloader, max_steps=None):
                pass
        """,
        pkg__recipe="""
        from .sched import StepScheduler

        def build_step_scheduler(cfg, dataloader, dp_size):
            kwargs = dict(global_batch_size=32, dataloader=dataloader)
            kwargs["dp_size"] = dp_size
            cfg.pop("restore_from", None)
            kwargs |= cfg
            return StepScheduler(**kwargs)

        class Recipe:
            def setup(self):
                self.model = self.cfg.model.instantiate(tokenizer=self.tok, **extra)
                self.factory(params=self.params, **self.kwargs)
                self.submodule(hidden=1, **self.kwargs)
        """,
    )
    callables, _, _ = idx.table()  # type: ignore[attr-defined]
    # in place of AutoModel's own entry, which later tests need as it was
    monkeypatch.setitem(sections.SECTION_TARGETS, "step_scheduler", ("pkg.sched.StepScheduler",))
    built = sections.section_builds(idx, callables, {})
    assert built["*"]["step_scheduler"] == {
        "target": "pkg.sched.StepScheduler",
        "supplied": "dataloader dp_size global_batch_size restore_from",
    }
    assert builds.supplied_keywords(idx) == {"tokenizer", "params"}


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("pkg/recipes/llm/train_ft.py", "class TrainRecipe(BaseRecipe):\n", {"TrainRecipe"}),
        ("pkg/recipes/llm/train_ft.py", "class BaseRecipe:\n", set()),
        ("pkg/recipes/llm/_utils.py", "class HiddenRecipe:\n", set()),
        ("pkg/recipes/llm/train_ft.py", "    class NestedRecipe:\n", set()),
        ("pkg/components/x.py", "class NotARecipeFile(Recipe):\n", set()),
    ],
)
def test_recipes_are_what_automodels_cli_finds(path: str, text: str, expected: set[str]) -> None:
    previous = builds.PACKAGE
    builds.PACKAGE = "pkg"
    try:
        found = set(builds.recipe_classes({path: text}).values())
    finally:
        builds.PACKAGE = previous
    assert found == expected


def test_the_init_is_the_first_in_the_method_resolution_order() -> None:
    callables, _, _ = table(
        pkg__mod="""
        class Root:
            def __init__(self, root):
                pass

        class Left(Root):
            pass

        class Right(Root):
            def __init__(self, right, **kwargs):
                pass

        class Diamond(Left, Right):
            pass

        class New:
            def __new__(cls, datapipe, copy=None):
                pass
        """
    )
    assert callables["pkg.mod.Diamond"] == "right! **"  # Diamond, Left, Right, Root
    assert callables["pkg.mod.New"] == "datapipe! copy"


def test_dataclass_keyword_only_fields_come_last() -> None:
    callables, _, _ = table(
        pkg__mod="""
        import dataclasses
        from dataclasses import KW_ONLY, InitVar, field

        @dataclasses.dataclass(frozen=True)
        class Mixture:
            names: tuple
            paths: tuple = field(default=(), kw_only=True)
            blend: InitVar[tuple] = field(default=None, kw_only=True)
            _cache: dict = field(default_factory=dict)

        @dataclasses.dataclass(kw_only=True)
        class AllKeywords:
            a: int
            b: int = 1

        @dataclasses.dataclass
        class Sentinel:
            a: int
            _: KW_ONLY
            b: int
        """
    )
    assert callables["pkg.mod.Mixture"] == "names! _cache paths blend"
    assert callables["pkg.mod.AllKeywords"] == "a! b"
    assert callables["pkg.mod.Sentinel"] == "a! b!"


def test_what_a_base_outside_the_package_adds_is_not_guessed() -> None:
    callables, _, opened = table(
        pkg__mod="""
        from dataclasses import dataclass
        from typing import Protocol
        from transformers.utils import ModelOutput

        class Stateful(Protocol):
            def state_dict(self): ...

        @dataclass
        class Output(ModelOutput):
            extra: int = 0

        class Config:
            def __init_subclass__(cls, **kwargs):
                cls = dataclass(cls, kw_only=True)

        class ModelConfig(Config):
            hidden: int = 8
        """
    )
    assert callables["pkg.mod.Stateful"] == "**"
    assert callables["pkg.mod.Output"] == "**"
    assert callables["pkg.mod.Config"] == ""
    assert callables["pkg.mod.ModelConfig"] == "**"
    assert opened == ["pkg.mod.Output", "pkg.mod.Stateful"]


def test_the_keys_a_loader_builder_takes_out_are_what_the_loader_sections_consume() -> None:
    idx = index(
        pkg__recipes__llm__train_ft="""
        def build_dataloader(cfg_ds, cfg_dl, seed):
            if "dataloader_type" in cfg_dl:
                del cfg_dl.dataloader_type
            del other.shuffle
            return cfg_dl.instantiate(dataset=cfg_ds)
        """,
        pkg__recipes___typed_config="""
        class RecipeConfig:
            def _resolve_dataloader(self, dataset_node, dataloader_node):
                loader_kwargs = _as_dict(dataloader_node)
                loader_kwargs.pop("_target_", None)
                dataset_node.pop("tokenizer", None)
                return Config(group_by_length=loader_kwargs.pop("group_by_length", False))
        """,
        pkg__components__loader="""
        def build(cfg_dl):
            del cfg_dl.not_a_recipe
        """,
    )
    assert sections.loader_consumed(idx) == {"dataloader_type", "_target_", "group_by_length"}
    built = sections.section_builds(idx, {}, {})
    for name in ("dataloader", "validation_dataloader"):
        assert built["*"][name] == {
            "target": "torchdata.stateful_dataloader.StatefulDataLoader",
            "supplied": "_target_ dataloader_type group_by_length",
        }


def test_a_loader_section_is_listed_only_where_a_recipe_takes_keys_out() -> None:
    idx = index(pkg__recipes__llm__train="def build(cfg_dl):\n    return cfg_dl.instantiate()\n")
    assert "dataloader" not in sections.section_builds(idx, {}, {})["*"]


def test_a_target_section_no_recipe_reads_is_null_for_every_recipe() -> None:
    idx = index(
        pkg__recipes__llm__train_ft="""
        class Recipe:
            def setup(self, cfg):
                fn = getattr(self.cfg.get("parallelizer", None), "instantiate", None)
                state.rng = make_rng(self.cfg.seed)
                loaded.get("moe_config")
        """,
        pkg__components__rng="def read(cfg):\n    return cfg.rng\n",
    )
    assert sections.unread_sections(idx) == ["moe_config", "rng"]
    assert sections.section_builds(idx, {}, {})["*"] == {
        "moe_config": None,
        "rng": None,
    }
    for read in ("cfg.moe_config", '"moe_config" in self._raw', 'self.config.get("moe_config.x")'):
        idx = index(pkg__recipes__train=f"def f(self, cfg):\n    return {read}\n")
        assert "moe_config" not in sections.unread_sections(idx), read


def test_a_walked_tree_holds_no_cycle_so_reference_counting_frees_it() -> None:
    import ast
    import gc

    from automodel_launch.automodel.extract.index import nodes_of

    tree = ast.parse("class A:\n    def f(self, x=1):\n        return g(x)\n")
    walked = list(nodes_of(tree))
    assert walked[0] is tree and walked == list(nodes_of(tree))  # itself first, then kept
    assert [type(n).__name__ for n in walked[:3]] == ["Module", "ClassDef", "FunctionDef"]
    for node in walked:
        list(nodes_of(node))  # every node walked, as the extractor may
    assert not any(held is node for node in walked for held in getattr(node, "_nodes", ()))
    assert not any(referent is tree for referent in gc.get_referents(*walked[1:]))

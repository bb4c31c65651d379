"""The startup facts read from a release's source, on small packages."""

from __future__ import annotations

import textwrap

from automodel_launch.automodel.extract import automodel_table


def table(**files: str) -> dict[str, object]:
    """``nemo_automodel__sub__mod="..."`` is ``nemo_automodel/sub/mod.py``."""
    sources = {
        "/".join("__init__" if p == "init" else p for p in key.split("__")) + ".py": (
            textwrap.dedent(text)
        )
        for key, text in files.items()
    }
    return automodel_table(sources, "tree", "test")


DATASETS = """
from torch.utils.data import IterableDataset, Dataset
import torch


class Stream(IterableDataset):
    def __iter__(self):
        yield 1


class Raises(IterableDataset):
    def __len__(self):
        '''No length.'''
        raise NotImplementedError("streaming")


class Counted(IterableDataset):
    def __len__(self):
        return 10


class ViaTorch(torch.utils.data.IterableDataset):
    pass


class Both(IterableDataset, Mapped):
    def __len__(self):
        raise TypeError("__len__ is not supported in streaming mode.")


class Mapped(Dataset):
    def __len__(self):
        return 3


class Child(Stream):
    pass


class _Private(IterableDataset):
    pass
"""


def test_an_iterable_data_set_has_no_length_unless_its_len_returns_one() -> None:
    made = table(nemo_automodel__data=DATASETS)
    assert made["unsized"] == [
        f"nemo_automodel.data.{name}" for name in ("Both", "Child", "Raises", "Stream", "ViaTorch")
    ]


BACKEND = """
from dataclasses import dataclass


@dataclass
class BackendConfig:
    attn: str = "sdpa"


@dataclass
class OtherBackendConfig:
    fused: bool = False


def resolve_other(backend):
    return OtherBackendConfig(**dict(backend))


class Loose:
    def __init__(self, **kw):
        pass
"""
MODEL_INIT = """
def build(cls, **kwargs):
    if isinstance(kwargs.get("backend"), dict):
        from nemo_automodel.components.utils import BackendConfig

        kwargs["backend"] = BackendConfig(**kwargs["backend"])
    from nemo_automodel.components.utils import Loose

    kwargs["loose"] = Loose(**kwargs["loose"])
    return cls(**kwargs)
"""


def test_a_mapping_the_model_builders_make_a_config_of() -> None:
    made = table(
        nemo_automodel__components__utils=BACKEND,
        nemo_automodel___transformers__model_init=MODEL_INIT,
        nemo_automodel__components__model="""
        from nemo_automodel.components.utils import resolve_other


        class Special:
            backend_config_resolver = staticmethod(resolve_other)
        """,
    )
    assert made["typed"] == {  # Loose takes anything: nothing to check
        "backend": {
            "target": "nemo_automodel.components.utils.BackendConfig",
            "within": "nemo_automodel._transformers",
            "also": ["nemo_automodel.components.utils.OtherBackendConfig"],
        }
    }


def test_whether_nemo_run_refuses_a_field_the_executor_lacks() -> None:
    refusing = """
    def apply_overrides(executor, overrides):
        for key, value in overrides.items():
            if not hasattr(executor, key):
                raise ValueError(key)
            setattr(executor, key, value)
    """
    setting = refusing.replace("raise ValueError(key)", "pass")
    path = "nemo_automodel__components__launcher__nemo_run__utils"
    assert table(**{path: refusing})["nemo_run_refuses"] is True
    assert table(**{path: setting})["nemo_run_refuses"] is False
    assert table(nemo_automodel__other="x = 1\n")["nemo_run_refuses"] is None

"""The ``jobs`` table drawn without rich is, character for character, what rich prints to
a pipe or a file; where only rich can say how a table looks, it is left to rich."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from rich.console import Console

from automodel_launch.jobs import view
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import State
from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.sweeps import SweepStatus
from tests.jobs.sweep_helpers import SWEEP, job, sweep

WIDTH = 400


def by_rich(rows: list[JobStatus | SweepStatus]) -> str:
    """What ``jobs`` prints through rich when its output is no terminal."""
    out = io.StringIO()
    Console(file=out, width=WIDTH).print(view.jobs_table(rows))
    return out.getvalue()


@pytest.fixture(autouse=True)
def _no_colour_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)


def single(tmp_path: Path, name: str, state: State = "COMPLETED", **fields: object) -> JobStatus:
    directory = tmp_path / str(fields.pop("folder", name.replace("/", "_")[:50] or "x"))
    made = job(directory, f"b{abs(hash(name)) % 16**11:011x}", "12345", name=name)
    return JobStatus(made, state, **fields)  # type: ignore[arg-type]


def test_ordinary_rows_are_drawn_as_rich_draws_them(tmp_path: Path) -> None:
    points = sweep(tmp_path, 3)
    now = time.time()
    rows: list[JobStatus | SweepStatus] = [
        SweepStatus(SWEEP, (JobStatus(points[0], "RUNNING", started_at=now - 4000),
                            JobStatus(points[1], "PENDING"), JobStatus(points[2], "FAILED"))),
        single(tmp_path, "a-long-name-of-a-run", "RUNNING", started_at=now - 90_000),
        single(tmp_path, "never", "PENDING", reason="PartitionNodeLimit"),
        single(tmp_path, "waits", "PENDING", reason="Priority"),
        single(tmp_path, "x", "UNKNOWN"),
    ]  # fmt: skip
    drawn = view.jobs_text(rows, WIDTH)
    assert drawn == by_rich(rows)
    lines = drawn.splitlines()
    assert lines[0].startswith("ID            NAME                  LAUNCHER  SCHEDULER ID  STATE")
    assert "PENDING (never starts)" in lines[3]
    assert "3 points: 1 PENDING, 1 RUNNING, 1 FAILED" in lines[1]
    assert " 1-1:00:00 " in lines[2]


@pytest.mark.parametrize(
    "folder",
    ["[bold]x[/bold]", "a[b]c", "[x", "a]b", "[/]", "[@click]", "[#fff]a", "x:y", "run 10:30",
     "hf_" + "a" * 34, "word " * 30],
)  # fmt: skip
def test_markup_and_cleaned_text_come_out_as_rich_prints_them(tmp_path: Path, folder: str) -> None:
    rows: list[JobStatus | SweepStatus] = [single(tmp_path, "one", folder=folder),
                                           single(tmp_path, "two")]  # fmt: skip
    drawn = view.jobs_text(rows, WIDTH)
    assert drawn is not None
    assert drawn == by_rich(rows)


@pytest.mark.parametrize(
    ("name", "folder"),
    [("résumé", "x"), ("名前", "x"), ("e\u0301", "x"), (":smile:", "x"), ("a:thumbs_up:b", "x"),
     (":red_circle-emoji:", "x"), ("x:y:z", "x"), ("x", "tail\\"), ("x", "\\[red]x"),
     ("x", "x\\["),
     ("x", "tab\tname"), ("x", "bell\x07")],
)  # fmt: skip
def test_what_only_rich_can_draw_is_left_to_it(tmp_path: Path, name: str, folder: str) -> None:
    """Escaped control characters hold a backslash (``tab\\tname``)."""
    rows: list[JobStatus | SweepStatus] = [single(tmp_path, name, folder=folder)]
    assert view.jobs_text(rows, WIDTH) is None


def test_a_table_wider_than_the_output_is_left_to_rich(tmp_path: Path) -> None:
    deep = str(Path("d " * 60, "e " * 60, "f " * 60))  # display() cuts a word at 120 characters
    rows: list[JobStatus | SweepStatus] = [single(tmp_path, "deep", folder=deep)]
    assert view.jobs_text(rows, WIDTH) is None
    fits = view.jobs_text(rows, 2000)
    assert fits is not None and str(tmp_path / deep) in fits
    narrow: list[JobStatus | SweepStatus] = [single(tmp_path, "w")]
    width = len((view.jobs_text(narrow, WIDTH) or "").splitlines()[0])
    out = io.StringIO()
    Console(file=out, width=width).print(view.jobs_table(narrow))  # rich: just fits
    assert view.jobs_text(narrow, width) == out.getvalue()
    assert view.jobs_text(narrow, width - 1) is None


def test_no_emoji_code_fits_the_columns_we_format() -> None:
    """SUBMITTED and ELAPSED hold ``12:34:56``: a two-digit emoji name would change them."""
    from rich._emoji_codes import EMOJI

    assert [name for name in EMOJI if name.isdigit() and len(name) <= 2] == []
    assert view.submitted("2026-11-30T16:49:19Z").count(":") == 2


def test_the_plain_table_has_rich_columns(tmp_path: Path) -> None:
    manifest: Manifest = job(tmp_path / "j", "c00000000000", None, name="n")
    drawn = view.jobs_text([JobStatus(manifest, "UNKNOWN")], WIDTH)
    header, row = (drawn or "").splitlines()
    assert header.startswith("ID            NAME  LAUNCHER  SCHEDULER ID  STATE    SUBMITTED  ")
    assert row.startswith("c00000000000  n     slurm     -             UNKNOWN  ")
    assert row.endswith(str(tmp_path / "j"))

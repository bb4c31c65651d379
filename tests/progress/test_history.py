"""training.jsonl read from its end: records, cut lines, junk, links, pipes, size."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from automodel_launch.progress.history import TAIL_BYTES, parse, read_history


def line(step: int, **metrics: object) -> str:
    return json.dumps({"step": step, "epoch": 0, "timestamp": "2026-12-07T10:00:00.500Z",
                       **metrics})  # fmt: skip


def test_records_of_a_whole_file(tmp_path: Path) -> None:
    (tmp_path / "training.jsonl").write_text(line(1, loss=3.0) + "\n" + line(2, loss=2.5) + "\n")
    found = read_history(tmp_path, "training.jsonl")
    assert found is not None
    assert [(r.step, r.loss) for r in found.records] == [(1, 3.0), (2, 2.5)]
    assert found.records[0].seconds == 1796637600.5
    assert found.skipped == 0


def test_a_missing_file_is_none(tmp_path: Path) -> None:
    assert read_history(tmp_path, "training.jsonl") is None


def test_junk_lines_are_counted_and_a_nan_loss_kept() -> None:
    raw = "\n".join([line(1, loss=float("nan")), "{not json", '{"step": -1}', '[1]',
                     '{"step": "3"}', line(4, val_loss=2.0), ""]).encode()  # fmt: skip
    found = parse(raw, whole=True)
    assert [r.step for r in found.records] == [1, 4]
    assert math.isnan(found.records[0].loss or 0.0)
    assert found.records[1].value == 2.0
    assert found.skipped == 4


def test_the_line_being_written_and_the_cut_first_line_are_dropped() -> None:
    raw = ('ep": 0}\n' + line(5, loss=1.0) + "\n" + line(6, loss=0.9)[:10]).encode()
    assert [r.step for r in parse(raw, whole=False).records] == [5]


def test_a_huge_file_is_read_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / "training.jsonl"
    with path.open("w") as out:
        out.truncate(1 << 30)  # 1 GiB, sparse
        out.seek(1 << 30)
        out.write("\n" + line(99, loss=1.25) + "\n")
    found = read_history(tmp_path, "training.jsonl")
    assert found is not None and [r.step for r in found.records] == [99]
    assert len(found.records) < TAIL_BYTES


def test_a_link_or_a_fifo_is_a_note_not_a_read(tmp_path: Path) -> None:
    (tmp_path / "real.jsonl").write_text(line(1, loss=1.0) + "\n")
    (tmp_path / "training.jsonl").symlink_to(tmp_path / "real.jsonl")
    os.mkfifo(tmp_path / "validation.jsonl")
    linked = read_history(tmp_path, "training.jsonl")
    piped = read_history(tmp_path, "validation.jsonl")
    assert linked is not None and linked.records == ()
    link = "it is a symbolic link, not a file"
    assert linked.note == f"{tmp_path}/training.jsonl is not read: {link}"
    assert piped is not None
    assert piped.note == f"{tmp_path}/validation.jsonl is not read: it is a named pipe, not a file"

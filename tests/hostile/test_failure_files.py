"""``status`` of a failed job whose error files and log are what torch never wrote: a
FIFO, a device, a link out of the job directory or within it, garbage holding a token,
bytes that are not UTF-8, a huge file. The real CLI: exit 0, nothing on stderr, no
traceback, no byte of the token, no hang, a link's target unchanged; what cannot be read
is left out of the diagnosis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.hostile.test_job_dirs import CONTENT, HOSTILE, TOKEN, clean, job
from tests.hostile.test_job_dirs import victims as victims  # the fixture


@pytest.mark.parametrize("kind", sorted(HOSTILE) + sorted(CONTENT))
def test_error_files_and_log_that_are_no_such_files(
    tmp_path: Path, kind: str, victims: None
) -> None:
    manifest = job(tmp_path, "run")
    job_dir = Path(manifest.job_dir)
    (job_dir / "exit_code").write_text("1\n")
    rank = job_dir / "torchrun" / "r_1" / "attempt_0" / "0"
    rank.mkdir(parents=True)
    (job_dir / "errors").mkdir()
    make = HOSTILE[kind][0] if kind in HOSTILE else CONTENT[kind]
    for path in (job_dir / "output.log", rank / "error.json", job_dir / "errors" / "node0.json"):
        make(path)
    done = run_cli("status", manifest.id, "--format", "json", cwd=tmp_path)
    clean(done, 0, lines=0)
    failure = json.loads(done.stdout)["failure"]
    assert (failure["rank"], failure["exit_code"]) == (None, 1)
    assert failure["cause"] == "exit-code"
    if kind == "garbage":
        assert failure["log_tail"] == ["\\x1b[31m--5 HF_TOKEN=***", "\\x00\ufffd"]
        text = run_cli("status", manifest.id, cwd=tmp_path)
        clean(text, 0, lines=0)
        assert "last lines of the job:\n  \\x1b[31m--5 HF_TOKEN=***" in text.stdout
    assert TOKEN.middle not in done.stdout

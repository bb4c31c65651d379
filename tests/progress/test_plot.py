"""Loss curves (``status --plot``, ``--plot-file``): the chart made of a job's or a sweep's
progress, drawn in the terminal by plotext and written by matplotlib (a real PNG, an SVG, an
HTML page); the options' refusals with their messages and exit codes; no plotting library
imported without ``--plot``."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.errors import LaunchError
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.sweeps import SweepStatus
from automodel_launch.progress import plot
from automodel_launch.progress.read import Progress
from tests.conftest import ROOT
from tests.hostile.tokens import make
from tests.jobs.sweep_helpers import SWEEP, sweep
from tests.support.fake_slurm import FakeSlurm

# the plot extra is installed with the tests (noxfile.py): its absence fails, never skips

TOKEN = make("hugging-face", 33).value
"""A credential in a swept key (built at run time: no credential-shaped literal)."""
HALF_HOUR = "2026-11-30T10:00:00|2026-11-30T10:30:00"
PYTHONPATH = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])


def point(n: int, lr: float, *, losses: Any = (), val: Any = (), **values: Any) -> JobStatus:
    manifest = Manifest(
        id=f"abcdef{n:06x}", name="lr", launcher="slurm", job_dir=f"/tmp/p{n}",
        submitted_at="2026-12-07T09:59:00Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch",), artifacts=("job.sbatch",), scheduler_id=f"100_{n}",
        sweep=SWEEP, point=n, values={"optimizer.lr": lr, "peft.dim": 8, **values},
    )  # fmt: skip
    progress = Progress(losses=tuple(losses), val_losses=tuple(val)) if losses or val else None
    return JobStatus(manifest, "RUNNING", progress=progress)


def curve(lr: float) -> list[tuple[int, float]]:
    return [(s, 3.0 * math.exp(-s * lr * 20)) for s in range(1, 201)]


def three_points() -> SweepStatus:
    nan = [*curve(1e-4)[:100], (101, math.nan), (102, math.inf), *curve(1e-4)[102:]]
    return SweepStatus(SWEEP, (
        point(0, 1e-3, losses=curve(1e-3), val=[(50, 1.5), (100, 0.6), (150, 0.3)]),
        point(1, 1e-4, losses=nan, val=[(50, 2.6), (100, math.nan)]),
        point(2, 1e-5, losses=curve(1e-5)),
    ))  # fmt: skip


def test_a_sweep_s_chart_labels_each_point_by_the_values_that_differ() -> None:
    chart = plot.sweep_chart(three_points())
    assert [c.label for c in chart.curves] == ["lr=0.001", "lr=0.0001", "lr=1e-05"]
    assert chart.left_out == 3
    assert chart.heading == f"sweep lr ({SWEEP}) (3 non-finite losses left out)"
    assert len(chart.curves[1].training) == 198 and chart.curves[1].validation == ((50, 2.6),)
    assert chart.curves[2].validation == ()
    assert plot.point_label({"optimizer.lr": 0.1, "scheduler.lr": 2}, 0) == (
        "optimizer.lr=0.1 scheduler.lr=2"
    )
    assert plot.point_label({}, 3) == "point 3"


def test_the_terminal_chart_in_a_pipe_has_the_title_the_labels_and_no_colour() -> None:
    text = plot.terminal_text(plot.sweep_chart(three_points()), width=100, color=False)
    lines = text.splitlines()
    assert f"sweep lr ({SWEEP}) (3 non-finite losses left out)" in lines[0]
    for label in ("lr=0.001", "lr=0.001 validation", "lr=0.0001", "lr=1e-05"):
        assert f" {label} " in text
    assert "\x1b" not in text
    assert max(len(line) for line in lines) == 100
    assert len(lines) == plot.HEIGHT
    assert lines[-2].split() == ["1", "51", "100", "150", "200"]  # whole steps
    assert lines[-1].split() == ["loss", "step"]
    coloured = plot.terminal_text(plot.sweep_chart(three_points()), width=80, color=True)
    assert "\x1b[" in coloured


def test_a_png_is_a_real_image(tmp_path: Path) -> None:
    from PIL import Image

    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "curves.png"
    plot.write_file(plot.sweep_chart(three_points()), target)
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    with Image.open(target) as image:
        assert image.size == (1000, 600)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16) or []
    assert len(colours) > 50  # lines, text and a legend, not a blank page
    assert [p.name for p in target.parent.iterdir()] == ["curves.png"]  # no temporary left


def test_svg_and_html_hold_the_labels_as_text(tmp_path: Path) -> None:
    chart = plot.sweep_chart(three_points())
    plot.write_file(chart, tmp_path / "c.svg")
    plot.write_file(chart, tmp_path / "c.HTML")
    svg = (tmp_path / "c.svg").read_text()
    page = (tmp_path / "c.HTML").read_text()
    for text in (svg, page):
        for label in ("lr=0.001", "lr=0.001 validation", "lr=0.0001", "lr=1e-05", "step"):
            assert f">{label}<" in text
        assert f"sweep lr ({SWEEP}) (3 non-finite losses left out)" in text
    assert svg.startswith("<?xml") and "<svg" in svg
    assert page.startswith("<!DOCTYPE html>\n") and page.rstrip().endswith("</html>")
    assert "<script" not in page and " src=" not in page and 'href="http' not in page
    pdf = tmp_path / "c.pdf"
    plot.write_file(chart, pdf)
    assert pdf.read_bytes().startswith(b"%PDF-")


def test_a_credential_never_reaches_the_image(tmp_path: Path) -> None:
    shown = SweepStatus(SWEEP, (
        point(0, 0.1, losses=curve(0.1), key=TOKEN), point(1, 0.2, losses=curve(0.2), key="a"),
    ))  # fmt: skip
    chart = plot.sweep_chart(shown)
    plot.write_file(chart, tmp_path / "c.svg")
    svg = (tmp_path / "c.svg").read_text()
    assert TOKEN not in svg and TOKEN[:12] not in svg
    assert ">lr=0.1 key=" in svg and ">lr=0.2 key=a<" in svg


def test_a_job_without_steps_says_so_instead_of_an_empty_chart(tmp_path: Path) -> None:
    chart = plot.job_chart(point(0, 0.1))
    assert plot.terminal_text(chart, width=100, color=False) == (
        "lr (abcdef000000): no steps logged yet"
    )
    with pytest.raises(LaunchError) as caught:
        plot.write_file(chart, tmp_path / "c.png")
    assert str(caught.value) == (
        f"lr (abcdef000000): no steps logged yet: {tmp_path / 'c.png'} is not written"
    )
    assert not (tmp_path / "c.png").exists()
    nan = plot.job_chart(point(0, 0.1, losses=[(1, math.nan)]))
    assert nan.message == "lr (abcdef000000): no finite loss logged yet (1 non-finite)"


# ------------------------------------------------------------------ the command line
def cli(fake_slurm: FakeSlurm, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args], capture_output=True, text=True,
        timeout=120, check=False, cwd=cwd,
        env={**os.environ, "PYTHONPATH": PYTHONPATH,
             "PATH": fake_slurm.path},
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    return done


def logged_sweep(fake_slurm: FakeSlurm, tmp_path: Path) -> list[Manifest]:
    """Two completed points whose logs hold 40 steps and two validations each."""
    points = sweep(tmp_path / "jobs", 2)
    for n, made in enumerate(points):
        lines = [f"[rank0]: step {s} | epoch 0 | loss {3.0 - s * 0.03 * (n + 1):.4f}"
                 for s in range(1, 41)]  # fmt: skip
        lines += [f'[rank0]: [val] name "default" | step {s} | epoch 0 | loss '
                  f"{3.0 - s * 0.025 * (n + 1):.4f}" for s in (20, 40)]  # fmt: skip
        Path(made.job_dir, f"lr_100_{n}.out").write_text("\n".join(lines) + "\n")
    fake_slurm.squeue()
    fake_slurm.answer(
        "sacct", "".join(f"100_{n}|COMPLETED|0:0|{HALF_HOUR}|n1||\n" for n in range(2))
    )
    return points


def test_status_of_a_sweep_draws_and_writes_its_curves(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    logged_sweep(fake_slurm, tmp_path)
    done = cli(fake_slurm, "status", SWEEP, "--plot", "--plot-file", "out.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "wrote the loss curves to out.png\n"
    table, chart = done.stdout.split("\n\n\n")[0], done.stdout.split("\n\n")[-1]
    assert table.startswith(f"sweep {SWEEP}  lr  [slurm 100]")
    assert f"sweep lr ({SWEEP})" in chart
    for label in ("lr=0.001 ", "lr=0.001 validation", "lr=0.0001 ", "lr=0.0001 validation"):
        assert label in chart
    assert max(len(line) for line in chart.splitlines()) == plot.PIPE_WIDTH
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_status_of_a_job_draws_its_curve_or_says_it_has_none(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    points = logged_sweep(fake_slurm, tmp_path)
    done = cli(fake_slurm, "status", points[0].id, "--plot", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"lr ({points[0].id})" in done.stdout
    assert " training " in done.stdout and " validation " in done.stdout
    Path(points[1].job_dir, "lr_100_1.out").write_text("loading...\n")
    done = cli(fake_slurm, "status", points[1].id, "--plot", "--plot-file", "x.svg", cwd=tmp_path)
    assert done.stdout.endswith(f"\n\nlr ({points[1].id}): no steps logged yet\n")
    assert done.stderr == f"error: lr ({points[1].id}): no steps logged yet: x.svg is not written\n"
    assert done.returncode == 1
    assert not (tmp_path / "x.svg").exists()


def status(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = errors.run(lambda: run_app(["status", "nosuchjob", *args]))
    out, err = capsys.readouterr()
    return code, out, err


def test_usage_errors_name_the_fix(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    link = tmp_path / "link.png"
    link.symlink_to(tmp_path / "elsewhere.png")
    expected = {
        ("--plot-file", str(tmp_path / "c.txt")): f"error: --plot-file {tmp_path / 'c.txt'}: "
        "the suffix .txt names no format; use .png, .svg, .pdf, .html\n",
        ("--plot-file", str(tmp_path / "c")): f"error: --plot-file {tmp_path / 'c'}: "
        "no suffix names no format; use .png, .svg, .pdf, .html\n",
        ("--plot-file", str(tmp_path / "no" / "c.png")): f"error: --plot-file "
        f"{tmp_path / 'no' / 'c.png'}: no such directory {tmp_path / 'no'}\n",
        ("--plot-file", str(link)): f"error: --plot-file {link} is a symbolic link: a plot is "
        "never written through one\n    hint: name the file itself\n",
        ("--plot-file", f"{tmp_path}.png"): None,
        ("--plot", "--watch"): "error: --plot and --plot-file draw once: not with --watch\n",
        ("--plot", "--format", "json"): "error: --plot draws on standard output: not with "
        "--format json\n    hint: write the chart to a file with --plot-file\n",
    }  # fmt: skip
    (tmp_path / "dir.png").mkdir()
    expected[("--plot-file", str(tmp_path / "dir.png"))] = (
        f"error: --plot-file {tmp_path / 'dir.png'} is a directory; name a file\n"
    )
    del expected[("--plot-file", f"{tmp_path}.png")]
    for args, message in expected.items():
        assert status(capsys, *args) == (2, "", message), args
    assert not (tmp_path / "elsewhere.png").exists()
    # the options are fine: the job is looked up (and not found, exit 1)
    code, _, err = status(capsys, "--plot", "--plot-file", str(tmp_path / "c.png"))
    assert code == 1 and err.startswith("error: no job")


@pytest.mark.parametrize(
    ("args", "module", "option"),
    [(["--plot"], "plotext", "--plot"), (["--plot-file", "c.svg"], "matplotlib", "--plot-file")],
)
def test_without_the_extra_the_error_names_it(
    tmp_path: Path, args: list[str], module: str, option: str
) -> None:
    script = (
        "import sys\n"
        f"sys.modules[{module!r}] = None  # as if not installed\n"
        "from automodel_launch.cli import errors\n"
        "from automodel_launch.cli.app import run_app\n"
        f"sys.exit(errors.run(lambda: run_app(['status', 'x', *{args!r}])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": PYTHONPATH},
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"error: {option} draws with {module}, which is not installed\n"
        "    hint: pip install 'automodel-launch[plot]'\n"
    )


def test_plain_status_imports_no_plotting_library(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    logged_sweep(fake_slurm, tmp_path)
    script = (
        "import sys\n"
        f"sys.argv = ['automodel-launch', 'status', {SWEEP!r}]\n"
        "from automodel_launch.cli import main\n"
        "code = None\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "found = sorted(m for m in sys.modules if m.split('.')[0] in ('plotext', 'matplotlib')\n"
        "               or m == 'automodel_launch.progress.plot')\n"
        "print(code, found, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=60,
        check=False, env={**os.environ, "PYTHONPATH": PYTHONPATH,
                          "PATH": fake_slurm.path},
    )  # fmt: skip
    assert done.stderr == "0 []\n"
    assert done.stdout.startswith(f"sweep {SWEEP}  lr  [slurm 100]")

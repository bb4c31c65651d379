"""Loss curves of a job or a sweep (``status --plot``, ``status --plot-file FILE``).

A :class:`Chart` is made of the progress ``status`` read (:mod:`automodel_launch.progress.read`)
and nothing else: no file is read, no process started. It is drawn in the terminal by
plotext or written by matplotlib as PNG, SVG or PDF, or as an HTML page holding the SVG
(self-contained: no script, nothing fetched, the same picture as the other formats). Both
libraries are the ``plot`` extra and are imported only here, only when a chart is drawn.

Non-finite losses (nan, inf) are left out of the curves and counted in the title. Every
text of a chart (its title and the points' labels) is masked as the terminal's: a token
shape or the value of a secret variable never reaches an image.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.errors import LaunchError, UsageError

if TYPE_CHECKING:
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.jobs.sweeps import SweepStatus

SUFFIXES = (".png", ".svg", ".pdf", ".html")
"""What ``--plot-file`` writes, by its name's suffix."""
EXTRA = "pip install 'automodel-launch[plot]'"
PIPE_WIDTH = 100
"""The terminal chart's width when standard output is no terminal."""
HEIGHT = 24
"""The terminal chart's height in lines."""
NO_STEPS = "no steps logged yet"
FIGURE_INCHES = (10.0, 6.0)
DPI = 100
"""A PNG is 1000 by 600 pixels."""
TERMINAL_COLORS = ("blue+", "orange+", "green+", "red+", "magenta+", "cyan+", "yellow", "gray")

Points = tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Curve:
    """One job's losses: training and validation, finite values only."""

    label: str
    training: Points
    validation: Points


@dataclass(frozen=True)
class Chart:
    title: str
    curves: tuple[Curve, ...]
    left_out: int = 0
    """Non-finite losses not drawn."""

    @property
    def empty(self) -> bool:
        return not any(c.training or c.validation for c in self.curves)

    @property
    def heading(self) -> str:
        if not self.left_out:
            return self.title
        losses = "loss" if self.left_out == 1 else "losses"
        return f"{self.title} ({self.left_out} non-finite {losses} left out)"

    @property
    def message(self) -> str:
        """What is said instead of an empty chart."""
        if self.left_out:
            return f"{self.title}: no finite loss logged yet ({self.left_out} non-finite)"
        return f"{self.title}: {NO_STEPS}"


def job_chart(status: JobStatus) -> Chart:
    """A job's chart: its training and validation losses."""
    manifest = status.manifest
    mask = _mask()
    curve, left_out = _curve(status, "")
    return Chart(mask(f"{manifest.name} ({manifest.id})"), (curve,), left_out)


def sweep_chart(sweep: SweepStatus) -> Chart:
    """A sweep's chart: a training and a validation curve a point, labelled by its values
    (those that differ between the points, when some do)."""
    mask = _mask()
    curves, left_out = [], 0
    every = [s.manifest.values for s in sweep.points]
    keys = list(dict.fromkeys(k for values in every for k in values))
    differ = [k for k in keys if len({repr(values.get(k)) for values in every}) > 1]
    for status in sweep.points:
        shown = {k: v for k, v in status.manifest.values.items() if k in (differ or keys)}
        label = point_label(shown, status.manifest.point, differ or keys)
        curve, dropped = _curve(status, mask(label))
        curves.append(curve)
        left_out += dropped
    return Chart(mask(f"sweep {sweep.first.name} ({sweep.id})"), tuple(curves), left_out)


def point_label(values: Mapping[str, Any], point: int | None, keys: Sequence[str] = ()) -> str:
    """``lr=0.1``: each swept key by its last part (whole when two keys share it)."""
    lasts = [k.rpartition(".")[2] for k in dict.fromkeys(keys or values)]
    parts = []
    for key, value in values.items():
        last = key.rpartition(".")[2]
        name = last if lasts.count(last) <= 1 else key
        parts.append(f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}")
    return " ".join(parts) if parts else f"point {point}"


def _curve(status: JobStatus, label: str) -> tuple[Curve, int]:
    progress = status.progress
    training = progress.losses if progress else ()
    validation = progress.val_losses if progress else ()
    kept = tuple((s, v) for s, v in training if math.isfinite(v))
    kept_val = tuple((s, v) for s, v in validation if math.isfinite(v))
    left_out = len(training) - len(kept) + len(validation) - len(kept_val)
    return Curve(label, kept, kept_val), left_out


def _mask() -> Callable[[str], str]:
    """The terminal's cleaning and the records' mask: no credential reaches a file."""
    from automodel_launch.secrets import display
    from automodel_launch.written import record_mask

    masked = record_mask(os.environ)

    def mask(text: str) -> str:
        return masked(display(text))

    return mask


# ------------------------------------------------------------------ checks before reading
def require(*, terminal: bool, file: bool) -> None:
    """The libraries the asked charts need are installed: else a usage error naming the
    extra (exit 2, as ``lsp`` without its extra)."""
    wanted = [("--plot", "plotext")] if terminal else []
    wanted += [("--plot-file", "matplotlib")] if file else []
    for option, module in wanted:
        try:
            __import__(module)
        except ImportError as exc:
            if (exc.name or module).split(".")[0] != module:
                raise
            raise UsageError(
                f"{option} draws with {module}, which is not installed", hint=EXTRA
            ) from None


def checked_path(path: Path) -> Path:
    """``path`` as ``--plot-file`` may write it: a known suffix, in a directory that
    exists, not a directory, not a symbolic link (a plot is never written through one)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        said = f"the suffix {suffix}" if suffix else "no suffix"
        raise UsageError(f"--plot-file {path}: {said} names no format; use {', '.join(SUFFIXES)}")
    if path.is_symlink():
        raise UsageError(
            f"--plot-file {path} is a symbolic link: a plot is never written through one",
            hint="name the file itself",
        )
    if path.is_dir():
        raise UsageError(f"--plot-file {path} is a directory; name a file")
    if not path.parent.is_dir():
        raise UsageError(f"--plot-file {path}: no such directory {path.parent}")
    return path


# ------------------------------------------------------------------ the terminal
def terminal_width(is_terminal: bool) -> int:
    import shutil

    return shutil.get_terminal_size((PIPE_WIDTH, HEIGHT)).columns if is_terminal else PIPE_WIDTH


def terminal_text(chart: Chart, *, width: int, color: bool) -> str:
    """The chart as text (or the message of an empty one); without colour in a pipe."""
    if chart.empty:
        return chart.message
    import plotext as plt

    plt.clear_figure()
    plt.limitsize(False, False)  # the width asked, not plotext's guess of the terminal's
    plt.plotsize(width, HEIGHT)
    plt.theme("clear")
    for index, curve in enumerate(chart.curves):
        tint = TERMINAL_COLORS[index % len(TERMINAL_COLORS)]
        if curve.training:
            xs, ys = zip(*curve.training, strict=True)
            plt.plot(list(xs), list(ys), label=curve.label or "training", color=tint)
        if curve.validation:
            xs, ys = zip(*curve.validation, strict=True)
            label = f"{curve.label} validation" if curve.label else "validation"
            plt.plot(list(xs), list(ys), label=label, color=tint, marker="x")
    steps = [s for c in chart.curves for s, _ in (*c.training, *c.validation)]
    plt.xticks(_ticks(min(steps), max(steps)))
    plt.title(chart.heading)
    plt.xlabel("step")
    plt.ylabel("loss")
    text = str(plt.build()).rstrip("\n")
    plt.clear_figure()
    return text if color else str(plt.uncolorize(text))


def _ticks(first: int, last: int, count: int = 5) -> list[int]:
    """Whole steps for the x axis (plotext's own would say ``50.8``)."""
    if last <= first:
        return [first]
    return sorted({round(first + (last - first) * i / (count - 1)) for i in range(count)})


# ------------------------------------------------------------------ a file
def write_file(chart: Chart, path: Path) -> None:
    """The chart in the format ``path``'s suffix names, written whole (a temporary file
    beside it, then renamed: a reader never sees half a picture, and a symbolic link put
    there meanwhile is replaced, never followed)."""
    if chart.empty:
        raise LaunchError(f"{chart.message}: {path} is not written")
    suffix = path.suffix.lower()
    if suffix == ".html":
        data = _html(chart, _drawn(chart, "svg").decode("utf-8"))
    else:
        data = _drawn(chart, suffix[1:])
    _write_whole(path, data)


def _drawn(chart: Chart, form: str) -> bytes:
    import io

    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=FIGURE_INCHES, dpi=DPI, layout="constrained")
    axes = figure.add_subplot()
    for index, curve in enumerate(chart.curves):
        tint = f"C{index % 10}"
        if curve.training:
            xs, ys = zip(*curve.training, strict=True)
            axes.plot(xs, ys, color=tint, linewidth=1.5, label=_text(curve.label or "training"))
        if curve.validation:
            xs, ys = zip(*curve.validation, strict=True)
            label = f"{curve.label} validation" if curve.label else "validation"
            axes.plot(xs, ys, color=tint, linestyle="--", marker="o", markersize=4,
                      label=_text(label))  # fmt: skip
    axes.set_title(_text(chart.heading))
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("step")
    axes.set_ylabel("loss")
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")
    buffer = io.BytesIO()
    # text stays text in an SVG (searchable, the page's own font); the same bytes each time
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "automodel-launch"}):
        metadata = {"Date": None} if form in ("svg", "pdf") else None
        figure.savefig(buffer, format=form, metadata=metadata)
    return buffer.getvalue()


def _text(label: str) -> str:
    """A label as matplotlib shows it literally: no math (``$``), not hidden (``_...``)."""
    label = label.replace("$", r"\$")
    return f" {label}" if label.startswith("_") else label


def _html(chart: Chart, svg: str) -> bytes:
    from html import escape

    start = svg.find("<svg")
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(chart.heading)}</title>\n"
        "<style>body { font-family: sans-serif; margin: 2em; } "
        "svg { max-width: 100%; height: auto; }</style>\n</head>\n<body>\n"
        f"{svg[start:]}\n</body>\n</html>\n"
    )
    return page.encode("utf-8")


def _write_whole(path: Path, data: bytes) -> None:
    import stat
    import tempfile

    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, stat.S_IMODE(0o666 & ~umask))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

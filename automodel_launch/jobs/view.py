"""How ``jobs`` and ``status`` show jobs: a table, a detail view, or JSON."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.sweeps import SweepStatus
from automodel_launch.secrets import display

STATE_STYLE = {
    "PENDING": "yellow", "RUNNING": "cyan", "COMPLETED": "green", "FAILED": "red",
    "CANCELLED": "magenta", "TIMEOUT": "red", "PREEMPTED": "yellow", "REQUEUED": "yellow",
    "UNKNOWN": "dim",
}  # fmt: skip


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    text = f"{rest // 3600}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def submitted(stamp: str) -> str:
    """Local time, as the user reads a clock."""
    try:
        import calendar

        epoch = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return stamp
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def jobs_json(statuses: Sequence[JobStatus]) -> str:
    return json.dumps({"jobs": [s.to_json() for s in statuses]}, indent=2) + "\n"


def status_json(status: JobStatus) -> str:
    return json.dumps(status.to_json(), indent=2) + "\n"


JOB_COLUMNS = ("ID", "NAME", "LAUNCHER", "SCHEDULER ID", "STATE", "SUBMITTED", "ELAPSED",
               "PROGRESS", "JOB DIRECTORY")  # fmt: skip


def jobs_table(rows: Sequence[JobStatus | SweepStatus]) -> Any:
    """``jobs``: a row a single job, one row a sweep (its points counted by state)."""
    table = _table(JOB_COLUMNS)
    for row in rows:
        table.add_row(*_row_cells(row, _cell, _styled))
    return table


_EMOJI_CODE = re.compile(r"(:(\S*?)(?:(?:\-)(emoji|text))?:)")
"""rich's pattern of an emoji code (``:smile:``), which it draws as the emoji."""
_OUR_FORMAT = frozenset(JOB_COLUMNS.index(c) for c in ("SUBMITTED", "ELAPSED", "PROGRESS"))
"""Columns of digits, ``-`` and ``:`` of our own making: no emoji code is two digits."""


def jobs_text(rows: Sequence[JobStatus | SweepStatus], width: int) -> str | None:
    """The table of :func:`jobs_table` as rich prints it without colour (to a pipe or a file,
    ``width`` columns), made without rich, which takes longer to import and draw it than
    ``jobs`` takes to find the jobs. None when only rich can say how it looks: a table
    wider than ``width`` (rich folds it), a character that is not ASCII (a wide or a
    combining one), a backslash (rich's markup escape does not give every one back as it
    was), or text rich reads as an emoji code."""
    lines = [JOB_COLUMNS, *(_row_cells(row, display, _plain) for row in rows)]
    for cells in lines[1:]:
        for column, cell in enumerate(cells):
            if not cell.isascii() or "\\" in cell:
                return None
            if column not in _OUR_FORMAT and _EMOJI_CODE.search(cell):
                return None
    widths = [max(len(cells[column]) for cells in lines) for column in range(len(JOB_COLUMNS))]
    if sum(widths) + 2 * (len(widths) - 1) > width:
        return None
    return "".join("  ".join(map(str.ljust, cells, widths)) + "\n" for cells in lines)


def _row_cells(
    row: JobStatus | SweepStatus, cell: Callable[[str], str], style: Callable[[str, str], str]
) -> tuple[str, ...]:
    """A row's cells: ``cell`` cleans a text from outside, ``style`` colours a text."""
    if isinstance(row, SweepStatus):
        first = row.first
        return (
            row.id, cell(first.name), first.launcher, cell(row.array_id or "-"),
            cell(row.summary), submitted(row.submitted_at), "-", "-", cell(row.job_dir),
        )  # fmt: skip
    m = row.manifest
    state = style(row.state, STATE_STYLE[row.state])
    explained = row.explained
    if explained is not None and explained.never_starts:
        state += " " + style("(never starts)", "red")
    return (
        m.id, cell(m.name), m.launcher, cell(m.scheduler_id or "-"), state,
        submitted(m.submitted_at), duration(row.elapsed), progress_cell(row), cell(m.job_dir),
    )  # fmt: skip


def progress_cell(row: JobStatus) -> str:
    """``step/max_steps`` (``step`` alone without a bound) of a running job, read from its
    log's last lines; ``-`` for any other job: a finished job's is in ``status``."""
    if row.state != "RUNNING":
        return "-"
    from automodel_launch.progress.read import step_of

    found = step_of(row)
    if found is None:
        return "-"
    step, bound = found
    return f"{step}/{bound}" if bound else str(step)


def _table(columns: Sequence[str]) -> Any:
    from rich.table import Table

    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def _styled(text: str, style: str) -> str:
    return f"[{style}]{text}[/]"


def _plain(text: str, style: str) -> str:
    return text


def status_lines(s: JobStatus) -> list[str]:
    """The detail view, plain text (rich markup escaped)."""
    m = s.manifest
    own = f" (scheduler: {s.scheduler_state})" if s.scheduler_state else ""
    lines = [
        f"job {m.id}  {m.name}  [{m.launcher} {m.scheduler_id or '-'}]",
        f"state      {s.state}{own}",
    ]
    if s.reason:
        lines.append(f"reason     {s.reason}")
    explained = s.explained
    if explained is not None:
        lines.append(f"           {explained.text}")
        if explained.never_starts and explained.field:
            lines.append(
                f"           fix: change {explained.field} in {m.config_path}, then "
                f"`automodel-launch cancel {m.id}` and submit again"
            )
        elif explained.field:
            lines.append(f"           field: {explained.field}")
    lines += [
        f"nodes      {s.nodes or '-'}",
        f"elapsed    {duration(s.elapsed)} of {s.time_limit or 'no limit known'}",
        f"exit code  {'-' if s.exit_code is None else s.exit_code}",
        f"log        {s.log_path or '-'}",
        f"job dir    {m.job_dir}",
        f"submitted  {submitted(m.submitted_at)}",
    ]
    if s.note:
        lines.append(f"note       {s.note}")
    if s.progress is not None:
        from automodel_launch.progress.text import progress_lines

        lines += progress_lines(s.progress)
    if s.failure is not None:
        from automodel_launch.jobs.failure_text import failure_lines

        lines += failure_lines(s.failure)
    return [_safe(line) for line in lines]


def _safe(text: str) -> str:
    return display(text)


def _cell(text: str) -> str:
    """A table cell: cleaned, and ``[...]`` in a name or path shown, not read as markup."""
    from rich.markup import escape

    return escape(display(text))


def gpu_hours(hours: float | None) -> str:
    return "-" if hours is None else f"{hours:.2f}"


def sweep_lines(sweep: SweepStatus) -> list[str]:
    """The head of ``status SWEEP``: what it is, its states, its GPU-hours, its best point
    and, over different node counts, how throughput scales."""
    from automodel_launch.progress.compare import best, scaling
    from automodel_launch.progress.text import loss

    first = sweep.first
    keys = ", ".join(dict.fromkeys(k for s in sweep.points for k in s.manifest.values)) or "-"
    lines = [
        f"sweep {sweep.id}  {first.name}  [{first.launcher} {sweep.array_id or '-'}]",
        f"points     {sweep.summary}",
        f"swept      {keys}",
        f"GPU-hours  {gpu_hours(sweep.gpu_hours)}",
        f"job dir    {sweep.job_dir}",
        f"submitted  {submitted(sweep.submitted_at)}",
    ]
    top = best(sweep.points)
    if top is not None and top.progress is not None:
        p = top.progress
        said = (f"validation loss {loss(p.best_val_loss)} at step {p.best_val_step}"
                if p.best_val_loss is not None else f"training loss {loss(p.loss)}")  # fmt: skip
        lines.append(f"best       point {top.manifest.point} ({_values(top) or '-'}): {said}")
    for row in scaling(sweep.points) or []:
        per_gpu = "-" if row.tps_per_gpu is None else f"{row.tps_per_gpu:,.0f}"
        efficiency = "-" if row.efficiency is None else f"{row.efficiency:.0%}"
        lines.append(f"scaling    point {row.point}: {row.nodes} node(s), {per_gpu} tokens/s per "
                     f"GPU, {efficiency} of the smallest point's")  # fmt: skip
    return [_safe(line) for line in lines]


SWEEP_COLUMNS = ("", "POINT", "VALUES", "SCHEDULER ID", "STATE", "STEP", "LOSS", "BEST VAL",
                 "TOKENS/S/GPU", "ELAPSED", "GPU-HOURS", "ID")  # fmt: skip


def sweep_table(sweep: SweepStatus, sort: str | None = None) -> Any:
    """``status SWEEP``: a row a point, with its values and how far it trained, ordered by
    ``sort`` (by validation loss once a point has one); the best point marked ``*``."""
    from automodel_launch.progress.compare import best, default_sort, ranked
    from automodel_launch.progress.text import loss

    table = _table(SWEEP_COLUMNS)
    top = best(sweep.points)
    for s in ranked(sweep.points, sort or default_sort(sweep.points)):
        m, p = s.manifest, s.progress
        step = "-" if p is None or p.step is None else str(p.step)
        if p is not None and p.step is not None and p.max_steps:
            step += f"/{p.max_steps}"
        table.add_row(
            "*" if s is top else "", str(m.point), _cell(_values(s) or "-"),
            _cell(m.scheduler_id or "-"), _styled(s.state, STATE_STYLE[s.state]), step,
            loss(None if p is None else p.loss),
            loss(None if p is None else p.best_val_loss),
            "-" if p is None or p.tps_per_gpu is None else f"{p.tps_per_gpu:,.0f}",
            duration(s.elapsed), gpu_hours(s.gpu_hours), m.id,
        )  # fmt: skip
    return table


def _values(s: JobStatus) -> str:
    return " ".join(f"{key}={json.dumps(value)}" for key, value in s.manifest.values.items())


def sweep_json(sweep: SweepStatus, sort: str | None = None) -> str:
    return json.dumps(sweep.to_json(sort), indent=2) + "\n"

"""The SBATCH script's notification part (``slurm.notify``), and the files it runs.

The job notifies itself, so nothing keeps running where it was submitted: the script
runs ``notify.py`` (:mod:`.notifier`, written into the job directory with its settings,
``notify.json``) at the start of each run, from its EXIT trap once ``exit_code`` is
written (status 0: ``end``, else ``fail``), from the requeue trap just before ``scontrol
requeue`` (that run then sends no ``end``/``fail``: the job goes on), and from
a background timer ``time_limit_near_minutes`` before the limit.

Each call is bounded twice: the notifier stops at ``timeout_seconds``, and ``timeout``
kills it a little after. Every call ends in ``|| true`` and the EXIT trap ends with
``exit`` of the status it was given, so a notification never changes the job's exit
status. The webhook's URL is never written: the script names its variable, which the
job gets from the submitting environment as any credential (and ``submit`` carries to a
named cluster, finding it by that ``${NAME}``).
"""

from __future__ import annotations

import json
from importlib import resources

from automodel_launch.config.document import LaunchDocument
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.layout import NOTIFIER, NOTIFY_CONFIG
from automodel_launch.render.environment import exported_variables

DIRECTIVE = "# shellcheck disable=SC2317  # run from the EXIT trap"
KILL_AFTER = 3
"""Seconds past ``timeout_seconds`` after which ``timeout`` ends the notifier itself (its
interpreter's start, a resolver that ignores its deadline)."""
_CALL = f'python3 "$JOB_DIR/{NOTIFIER}" "$@" </dev/null || true'


def credential_names(cfg: SlurmConfig) -> list[str]:
    """The variables whose values the notifier masks in what it sends: the job's
    credentials and the webhook's."""
    names = [name for name, value in exported_variables(cfg) if value.is_secret]
    if cfg.notify is not None and cfg.notify.webhook_env is not None:
        names.append(cfg.notify.webhook_env)
    return list(dict.fromkeys(names))


def files(document: LaunchDocument) -> dict[str, str]:
    """``notify.py`` and ``notify.json`` for a Slurm job with ``notify``, else nothing."""
    cfg = document.slurm
    if cfg is None or cfg.notify is None:
        return {}
    settings = {
        "events": list(cfg.notify.events),
        "webhook_env": cfg.notify.webhook_env,
        "command": cfg.notify.command,
        "timeout_seconds": cfg.notify.timeout_seconds,
        "time_limit_near_minutes": cfg.notify.time_limit_near_minutes,
        "mask": credential_names(cfg),
    }
    notifier = resources.files(__package__).joinpath("notifier.py").read_text(encoding="utf-8")
    return {NOTIFIER: notifier, NOTIFY_CONFIG: json.dumps(settings, indent=2) + "\n"}


def functions(cfg: SlurmConfig) -> str:
    """The variables and functions the traps call (before the EXIT trap is set)."""
    notify = cfg.notify
    if notify is None:
        return ""
    bound = notify.timeout_seconds + KILL_AFTER
    lines = [
        f"# slurm.notify: the job sends its own notifications ({NOTIFIER} in its directory):",
        f"# {', '.join(notify.events)}. Each ends within {notify.timeout_seconds} s and never "
        "changes the job's exit status.",
    ]
    if notify.webhook_env is not None:
        name = notify.webhook_env
        lines.append(f'export {name}="${{{name}:-}}"  # the webhook URL, by name only')
    end = [
        '  if [ "$1" = 0 ]; then',
        "    notify end --exit-code 0" if "end" in notify.events else "    :",
        "  else",
        '    notify fail --exit-code "$1"' if "fail" in notify.events else "    :",
        "  fi",
    ]
    lines += [
        "NOTIFY_REQUEUED=0",
        "NOTIFY_TIMER=",
        "notify() {",
        '  if [ -z "${JOB_DIR:-}" ] || ! command -v python3 >/dev/null 2>&1; then return 0; fi',
        "  if command -v timeout >/dev/null 2>&1; then",
        f"    timeout -k 1 {bound} {_CALL}",
        "  else",
        f"    {_CALL}",
        "  fi",
        "}",
        DIRECTIVE,
        "notify_exit() {",
        '  if [ -n "$NOTIFY_TIMER" ]; then kill "$NOTIFY_TIMER" 2>/dev/null || true; fi',
        "  # a requeued run is not the job's end",
        "  if (( NOTIFY_REQUEUED )); then return 0; fi",
        *end,
        "}",
    ]
    return "\n".join(lines) + "\n"


def record_exit(record: str, cfg: SlurmConfig) -> str:
    """The EXIT trap: ``record`` (it writes ``exit_code``), then the notification, then
    ``exit`` with the status the trap was given."""
    if cfg.notify is None:
        return record
    body = record.removesuffix("' EXIT")
    return body + """; notify_exit "$1" || true; exit "$1"' EXIT"""


def start(cfg: SlurmConfig) -> str:
    """``start`` now, and the timer of ``time_limit_near``."""
    notify = cfg.notify
    if notify is None:
        return ""
    lines = ["notify start"] if "start" in notify.events else []
    limit = cfg.time_minutes
    if "time_limit_near" in notify.events and limit is not None:
        near = max(0, (limit - notify.time_limit_near_minutes) * 60)
        lines += [
            f"NOTIFY_NEAR={near}  # seconds into the job",
            "if command -v python3 >/dev/null 2>&1; then",
            f'  python3 "$JOB_DIR/{NOTIFIER}" time_limit_near --wait '
            '"$(( NOTIFY_NEAR > SECONDS ? NOTIFY_NEAR - SECONDS : 0 ))" </dev/null &',
            "  NOTIFY_TIMER=$!",
            "fi",
        ]
    return "\n".join(lines) + "\n" if lines else ""


def requeuing(cfg: SlurmConfig) -> list[str]:
    """What the requeue trap runs just before ``scontrol requeue``: a requeue ends the
    running job at once (Slurm signals all its processes), so ``requeue`` is sent first,
    and the EXIT trap of this run is told it is no end of the job."""
    notify = cfg.notify
    if notify is None:
        return []
    lines = ["  NOTIFY_REQUEUED=1"]
    if "requeue" in notify.events:
        lines.append("  notify requeue")
    return lines


def not_requeued(cfg: SlurmConfig) -> list[str]:
    """When ``scontrol requeue`` failed: this run's end is the job's."""
    return [] if cfg.notify is None else ["    NOTIFY_REQUEUED=0"]

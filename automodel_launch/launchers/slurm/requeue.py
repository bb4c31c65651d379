"""The SBATCH script's preemption part: ``--signal``, the trap, and requeueing.

Slurm sends ``signal`` (``B:``, to the batch shell only) ``SECONDS`` before the time
limit. bash runs a trap only between commands, so ``srun`` runs in the background
and the script ``wait``\\ s for it, waiting again after a trap interrupted the wait,
and exits with srun's status.

At the signal, while ``SLURM_RESTART_COUNT`` (0 on the first run) is below
``max_requeues``: the ranks' job steps get SIGTERM, the signal AutoModel's
``StepScheduler`` handles (``step_scheduler.preemption_signal``, default SIGTERM: every
rank saves a checkpoint at the next step and training stops; torchrun forwards it and
gives its workers 30 s); the script waits for them until 15 s before the limit, then
``scontrol requeue``\\ s the job. The signal itself is never forwarded: an unhandled
SIGUSR1 kills a Python process. ``scancel --signal`` is used, not ``kill`` on srun:
srun answers SIGTERM by killing its tasks. The last allowed run keeps training to its
time limit.

The script's clock is the allocation's: Slurm counts the time limit, and sends the
signal, from the job's start, and on a busy node the batch step may start well after
it. At its start the script sets bash's ``SECONDS`` to the time the job has used
(``squeue -o %M``); without an answer it keeps its own clock.

A restarted run may get the signal early, even at its start (observed on Slurm
22.05): a signal more than 30 s (Slurm's time-limit check period) before
``time - SECONDS`` is acted on at that time instead.

The ranks' job step may not exist yet when the signal comes (srun is still starting
it): the script looks for it again each second until it is there, srun has ended or
the time to stop them is up.
"""

from __future__ import annotations

from automodel_launch.config.recipe import FaultTolerance
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.config.slurm_signal import SlurmSignal
from automodel_launch.launchers.slurm import notify

EARLY_TOLERANCE = 30
"""Seconds a signal may come before its time and still count as on time."""
DIRECTIVE = "# shellcheck disable=SC2317  # run from the trap"
REQUEUE_RESERVE = 15
"""Seconds before the time limit by which the script requeues, ranks stopped or not."""


def directives(cfg: SlurmConfig, ft: FaultTolerance | None) -> list[str]:
    """``--signal``, and ``--requeue``/``--open-mode=append`` once for either feature."""
    lines = []
    signal = cfg.warning_signal
    if signal is not None:
        lines.append(f"#SBATCH --signal={signal.sbatch}")
    if cfg.requeue or (ft is not None and ft.requeue):
        lines += ["#SBATCH --requeue", "#SBATCH --open-mode=append"]
    return lines


def trap(cfg: SlurmConfig) -> str:
    """The handler, installed before anything else runs (an untrapped signal kills bash)."""
    signal = cfg.warning_signal
    if signal is None:
        return ""
    sig = signal.name
    limit = cfg.time_minutes
    act_after = max(0, limit * 60 - signal.seconds - EARLY_TOLERANCE) if limit else 0
    max_requeues = cfg.max_requeues if cfg.requeue else 0
    return "\n".join([
        *_comment(cfg, signal, max_requeues),
        f"REQUEUE_SIGNAL_SECONDS={signal.seconds}",
        f"REQUEUE_ACT_AFTER={act_after}",
        f"REQUEUE_MAX={max_requeues}",
        "# the job to requeue: a task of an array is ARRAYID_INDEX (the first task's own id",
        "# is the array's, and names every task)",
        "REQUEUE_JOB=${SLURM_ARRAY_TASK_ID:+${SLURM_ARRAY_JOB_ID:-}_$SLURM_ARRAY_TASK_ID}",
        "REQUEUE_JOB=${REQUEUE_JOB:-${SLURM_JOB_ID:-}}",
        "REQUEUE_DONE=0",
        "REQUEUE_TIMER=",
        "REQUEUE_SIGNALLED=0",
        "SRUN_PID=",
        DIRECTIVE,
        'requeue_log() { echo "automodel-launch: $*"; }',
        DIRECTIVE,
        "requeue_stop_ranks() {",
        "  local steps=() deadline=$((SECONDS + REQUEUE_SIGNAL_SECONDS - "
        f"{REQUEUE_RESERVE}))",
        '  while [ -n "$SRUN_PID" ] && kill -0 "$SRUN_PID" 2>/dev/null '
        "&& (( SECONDS < deadline )); do",
        "    if (( ! ${#steps[@]} )); then",
        "      mapfile -t steps < <(squeue -h -s -j \"$REQUEUE_JOB\" -o %i "
        "| grep -E '\\.[0-9]+$')",
        "      if (( ${#steps[@]} )); then",
        '        scancel --signal=TERM "${steps[@]}" || requeue_log "scancel failed"',
        "      fi",
        "    fi",
        "    sleep 1",
        "  done",
        "}",
        "requeue_job_clock() {",
        "  # SECONDS from the allocation's start, as Slurm counts the time limit",
        "  local used",
        '  [ -n "$REQUEUE_JOB" ] || return 0',
        '  used=$(squeue -h -j "$REQUEUE_JOB" -o %M 2>/dev/null) || return 0',
        "  if [[ $used =~ ^(([0-9]+)-)?(([0-9]+):)?([0-9]+):([0-9]+)$ ]]; then",
        "    SECONDS=$(( ((10#${BASH_REMATCH[2]:-0} * 24 + 10#${BASH_REMATCH[4]:-0}) * 60 "
        "+ 10#${BASH_REMATCH[5]}) * 60 + 10#${BASH_REMATCH[6]} ))",
        "  fi",
        "}",
        DIRECTIVE,
        "requeue_on_signal() {",
        "  REQUEUE_SIGNALLED=1",
        "  local restarts=${SLURM_RESTART_COUNT:-0}",
        "  if (( SECONDS < REQUEUE_ACT_AFTER )); then",
        '    if [ -z "$REQUEUE_TIMER" ]; then',
        f'      requeue_log "{sig} at ${{SECONDS}}s is early for this run: acting at '
        '${REQUEUE_ACT_AFTER}s"',
        "      { while (( SECONDS < REQUEUE_ACT_AFTER )); do sleep 1; done; "
        f'kill -s {sig} "$$"; }} &',
        "      REQUEUE_TIMER=$!",
        "    fi",
        "    return 0",
        "  fi",
        "  if (( REQUEUE_DONE )); then return 0; fi",
        "  REQUEUE_DONE=1",
        "  if (( restarts >= REQUEUE_MAX )); then",
        f'    requeue_log "{sig} at ${{SECONDS}}s: no requeue left (SLURM_RESTART_COUNT='
        '$restarts, max_requeues $REQUEUE_MAX): training goes on to the time limit"',
        "    return 0",
        "  fi",
        f'  requeue_log "{sig} at ${{SECONDS}}s: SIGTERM to the ranks (checkpoint and stop), '
        'then requeue $((restarts + 1)) of $REQUEUE_MAX"',
        "  requeue_stop_ranks",
        *notify.requeuing(cfg),
        '  if scontrol requeue "$REQUEUE_JOB"; then',
        '    requeue_log "requeued job $REQUEUE_JOB; Slurm holds it about two minutes '
        '(BeginTime) before it starts again"',
        "  else",
        '    requeue_log "scontrol requeue failed: the job ends with this run"',
        *notify.not_requeued(cfg),
        "  fi",
        "}",
        f"trap requeue_on_signal {sig}",
        "requeue_job_clock",
    ]) + "\n"  # fmt: skip


def _comment(cfg: SlurmConfig, signal: SlurmSignal, max_requeues: int) -> list[str]:
    if not cfg.requeue:
        return [
            f"# slurm.signal: {signal.name} comes {signal.seconds} s before the time limit; "
            "without requeue",
            "# it is only logged (bash would die of it untrapped).",
        ]
    return [
        f"# slurm.requeue: {signal.name} comes {signal.seconds} s before the time limit. "
        "While SLURM_RESTART_COUNT",
        f"# is below {max_requeues}, the ranks then get SIGTERM (AutoModel saves a checkpoint "
        "and stops) and",
        "# the job is requeued; Slurm holds it about two minutes (BeginTime) before it starts "
        "again.",
        "# The last allowed run trains on to its time limit.",
    ]


def launch(cfg: SlurmConfig, srun: str) -> str:
    """``srun`` as is, or in the background with a wait that survives the trap."""
    if cfg.signal is None:
        return srun
    return "\n".join([
        srun.rstrip("\n") + " &",
        "SRUN_PID=$!",
        "while :; do",
        "  REQUEUE_SIGNALLED=0",
        "  status=0",
        '  wait "$SRUN_PID" || status=$?',
        "  (( REQUEUE_SIGNALLED )) || break",
        "done",
        'if [ -n "$REQUEUE_TIMER" ]; then kill "$REQUEUE_TIMER" 2>/dev/null || true; fi',
        'exit "$status"',
    ]) + "\n"  # fmt: skip

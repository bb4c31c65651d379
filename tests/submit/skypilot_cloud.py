"""A stand-in for SkyPilot's API server: the SDK's network calls (``sky.jobs.launch``,
``sky.jobs.queue``, ``sky.stream_and_get``) replaced, nothing else. Each replaced call
is bound to the installed SDK's own signature first (a call it would refuse fails here).

The cloud's state is a directory, so a sweep's driver process (which installs this
through ``fake_sky_site/sitecustomize.py``) and the test share it: ``launched.jsonl``
(one line a launch: the managed job id given, the task's name, its job config's source,
a digest of each secret: never a secret itself), ``queues.jsonl`` (the job ids each
queue call asked about, and the asking process) and ``states.json`` (job id -> the state
the test set; a job the test did not set RUNS until asked about ``finish_after`` times,
then SUCCEEDED).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from pathlib import Path
from typing import Any

from automodel_launch.layout import JOB_CONFIG

VARIABLE = "FAKE_SKY_CLOUD"
"""Set to the cloud's directory, the driver process installs the stand-in too."""


class Cloud:
    def __init__(self, root: Path, finish_after: int = 2) -> None:
        self.root = root
        self.finish_after = finish_after
        root.mkdir(parents=True, exist_ok=True)

    def launched(self) -> list[dict[str, Any]]:
        return _lines(self.root / "launched.jsonl")

    def queues(self, *, others: bool = False) -> list[list[int]]:
        """The job ids of each queue call (``others``: only those of other processes)."""
        lines = _lines(self.root / "queues.jsonl")
        return [line["job_ids"] for line in lines if not others or line["pid"] != os.getpid()]

    def set_state(self, job_id: int, state: str) -> None:
        states = self._states()
        states[str(job_id)] = state
        (self.root / "states.json").write_text(json.dumps(states))

    def _states(self) -> dict[str, str]:
        path = self.root / "states.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def install(self, sky: Any, setattr_: Any = setattr) -> None:
        launch = inspect.signature(sky.jobs.launch)
        queue = inspect.signature(sky.jobs.queue)

        def jobs_launch(*args: Any, **kwargs: Any) -> str:
            bound = launch.bind(*args, **kwargs).arguments
            task = bound["task"]
            job_id = len(self.launched()) + 1
            secrets = {
                name: hashlib.sha256(value.get_secret_value().encode()).hexdigest()
                for name, value in task.secrets.items()
            }
            mount = next(
                str(source) for target, source in task.file_mounts.items()
                if target.endswith(JOB_CONFIG)
            )  # fmt: skip
            _append(self.root / "launched.jsonl", {
                "job_id": job_id, "name": bound.get("name"), "config": mount, "secrets": secrets,
            })  # fmt: skip
            return f"launch:{job_id}"

        def jobs_queue(*args: Any, **kwargs: Any) -> str:
            job_ids = queue.bind(*args, **kwargs).arguments.get("job_ids")
            _append(self.root / "queues.jsonl", {"job_ids": job_ids, "pid": os.getpid()})
            return "queue:" + json.dumps(job_ids)

        def stream_and_get(request: str) -> Any:
            kind, _, rest = request.partition(":")
            if kind == "launch":
                return ([int(rest)], None)
            return [self._record(job_id) for job_id in json.loads(rest)]

        setattr_(sky.jobs, "launch", jobs_launch)
        setattr_(sky.jobs, "queue", jobs_queue)
        setattr_(sky, "stream_and_get", stream_and_get)

    def _record(self, job_id: int) -> dict[str, Any]:
        state = self._states().get(str(job_id))
        if state is None:
            asked = sum(job_id in ids for ids in self.queues())
            state = "SUCCEEDED" if asked >= self.finish_after else "RUNNING"
        return {"job_id": job_id, "status": state}


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a") as file:
        file.write(json.dumps(record) + "\n")

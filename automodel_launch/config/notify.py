"""``slurm.notify``: notifications the job sends itself (docs/notifications.md).

The job's own script sends them, from its traps, so nothing has to keep running where
it was submitted. A webhook's URL is a credential (whoever has it can post): the config
names the environment variable that holds it, never the URL, and the variable's name
must say it is a credential so that everything the tool writes masks its value.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, model_validator

from automodel_launch import secrets
from automodel_launch.config.types import StrictSection, fail, kind, show
from automodel_launch.loading import env

EVENTS = ("start", "end", "fail", "requeue", "time_limit_near")
Event = Literal["start", "end", "fail", "requeue", "time_limit_near"]
ALL_EVENTS: tuple[Event, ...] = ("start", "end", "fail", "requeue", "time_limit_near")
MAX_TIMEOUT = 60
"""Seconds one notification may take at most: the job's end waits for it."""
MAX_NEAR_MINUTES = 7 * 24 * 60
EXAMPLE_NAME = "NOTIFY_WEBHOOK_URL"


def _events(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items:
        fail("invalid-notify-event", "events is an empty list", "leave events out for all of them")
    out: list[str] = []
    for item in items:
        text = item.strip().lower().replace(" ", "_") if isinstance(item, str) else None
        if text not in EVENTS:
            fail(
                "invalid-notify-event",
                f"{show(item)} is not a notification event",
                "one of " + ", ".join(EVENTS),
            )
        if text not in out:
            out.append(text)
    return out


Events = Annotated[
    list[Event],
    BeforeValidator(_events),
    WithJsonSchema({
        "anyOf": [
            {"type": "string", "enum": list(EVENTS)},
            {"type": "array", "items": {"type": "string", "enum": list(EVENTS)}, "minItems": 1},
        ]
    }),
]  # fmt: skip


def _webhook_env(value: Any) -> str:
    if not isinstance(value, str):
        fail(
            "wrong-type",
            f"webhook_env must be the name of an environment variable, not {kind(value)}",
            f"write webhook_env: {EXAMPLE_NAME}",
        )
    if "://" in value or value.lower().startswith(("http", "www.")):
        # the value itself is never repeated: it is a credential
        fail(
            "notify-url-literal",
            "webhook_env takes the name of the variable that holds the webhook's URL, "
            "not the URL: a URL here would be written into the job",
            f"write webhook_env: {EXAMPLE_NAME} and set {EXAMPLE_NAME} to the URL where you submit",
        )
    reference = env.scan(value).references
    if len(reference) == 1 and value.startswith("${"):
        name = reference[0].name
        fail(
            "notify-webhook-reference",
            f"webhook_env takes the variable's name, not its value ({show(value)})",
            f"write webhook_env: {name}",
        )
    if not env.NAME_RE.fullmatch(value):
        fail(
            "invalid-env-name",
            f"{show(value)} is not an environment variable name",
            f"names are letters, digits and '_', not starting with a digit (e.g. {EXAMPLE_NAME})",
        )
    if not secrets.is_secret_name(value):
        fail(
            "notify-webhook-name",
            f"{show(value)} does not name a credential: its value (the URL) would not be "
            "masked in what automodel-launch writes",
            "give the variable a name with WEBHOOK, TOKEN or SECRET as one of its "
            f"'_'-separated words, e.g. {value}_WEBHOOK or {EXAMPLE_NAME}",
        )
    return value


WebhookEnv = Annotated[
    str,
    BeforeValidator(_webhook_env),
    WithJsonSchema({"type": "string", "pattern": env.NAME_RE.pattern}),
]


def _command(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        fail(
            "invalid-notify-command",
            f"command must be a list of words, not {kind(value)}",
            "write the program and its arguments as a list, e.g. [/usr/bin/logger, -t, job]; "
            "it reads the message (JSON) on its standard input",
        )
    for word in value:
        if not isinstance(word, str) or not word or "\x00" in word:
            fail(
                "invalid-notify-command",
                f"{show(word)} is not a command word",
                "each word is non-empty text; no shell runs the command",
            )
    return list(value)


Command = Annotated[
    list[str],
    BeforeValidator(_command),
    WithJsonSchema({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}),
]


class NotifyConfig(StrictSection):
    """Notifications the job sends itself from its script (a webhook, a command)."""

    model_config = StrictSection.model_config | {"title": "Job notifications"}

    events: Events = Field(
        default_factory=lambda: list(ALL_EVENTS),
        description="When the job notifies: `start` (each run, a requeued one too), `end` "
        "(exit status 0), `fail` (any other), `requeue` (the script requeued the job: no "
        "`end`/`fail` for that run), `time_limit_near` (time_limit_near_minutes before the "
        "time limit). One or a list; default all.",
        examples=[["start", "end", "fail"], "fail"],
    )
    webhook_env: WebhookEnv | None = Field(
        default=None,
        description="Name of the environment variable holding the webhook's URL, read by the "
        "job at run time (the URL is a credential: never written into the job directory). "
        "The message is POSTed to it as JSON. The name must say it is a credential (WEBHOOK, "
        "TOKEN or SECRET in it), so its value is masked in everything the tool writes.",
        examples=[EXAMPLE_NAME],
    )
    command: Command | None = Field(
        default=None,
        description="A program the job runs for each notification, as a list of words (no "
        "shell), with the message (JSON) on its standard input; its output is discarded.",
        examples=[["/usr/bin/logger", "-t", "automodel"]],
    )
    timeout_seconds: Annotated[int, Field(ge=1, le=MAX_TIMEOUT)] = Field(
        default=10,
        description="The most one notification takes, retry included (1..60 s): a "
        "receiver that does not answer delays the job's end by at most this. A notification "
        "never changes the job's exit status.",
    )
    time_limit_near_minutes: Annotated[int, Field(ge=1, le=MAX_NEAR_MINUTES)] = Field(
        default=10,
        description="How long before the time limit `time_limit_near` is sent (counted from "
        "the allocation's start when `signal` is set, else from the script's).",
    )

    @model_validator(mode="after")
    def _somewhere(self) -> NotifyConfig:
        if self.webhook_env is None and self.command is None:
            fail(
                "notify-nowhere",
                "notify has neither webhook_env nor command: nothing would be sent",
                f"add webhook_env: {EXAMPLE_NAME} (a variable holding the URL) or a command; "
                "Slurm's own mail is slurm.mail_type and slurm.mail_user",
            )
        return self

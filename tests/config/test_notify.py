"""``slurm.notify`` (automodel_launch/config/notify.py): what it takes, and what it refuses
with the exact code, place, message and fix. A webhook's URL is never repeated in one."""

from __future__ import annotations

import pytest

from automodel_launch.config.slurm import SlurmConfig
from tests.conftest import Validate, brief

SECTION = "slurm:\n  gpus_per_node: 8\n  time: '01:00:00'\n  notify:\n"


def diagnostics(validate: Validate, *lines: str) -> list[tuple[str, str, str | None]]:
    found = validate(SECTION + "".join(f"    {line}\n" for line in lines))
    return [(b, d.message, d.hint) for b, d in zip(brief(found), found, strict=True)]


def test_the_defaults_send_every_event() -> None:
    cfg = SlurmConfig.model_validate({"notify": {"webhook_env": "NOTIFY_WEBHOOK_URL"}})
    assert cfg.notify is not None
    assert cfg.notify.events == ["start", "end", "fail", "requeue", "time_limit_near"]
    assert (cfg.notify.timeout_seconds, cfg.notify.time_limit_near_minutes) == (10, 10)
    assert cfg.notify.command is None


@pytest.mark.parametrize(
    ("lines", "events"),
    [
        (["events: fail"], ["fail"]),
        (["events: [End, 'time limit near', end]"], ["end", "time_limit_near"]),
    ],
)
def test_events_are_read_in_any_case_once_each(
    validate: Validate, lines: list[str], events: list[str]
) -> None:
    assert diagnostics(validate, "webhook_env: SLACK_WEBHOOK_URL", *lines) == []
    cfg = SlurmConfig.model_validate(
        {"notify": {"webhook_env": "SLACK_WEBHOOK_URL", "events": events}}
    )
    assert cfg.notify is not None and cfg.notify.events == events


def test_a_url_given_as_the_variable_is_refused_and_not_repeated(validate: Validate) -> None:
    url = "https://hooks.example.org/services/T000/B000/abcdefgh"
    found = diagnostics(validate, f"webhook_env: {url}")
    assert found[0] == (
        "5:18 error[notify-url-literal] slurm.notify.webhook_env",
        "webhook_env takes the name of the variable that holds the webhook's URL, not the "
        "URL: a URL here would be written into the job",
        "write webhook_env: NOTIFY_WEBHOOK_URL and set NOTIFY_WEBHOOK_URL to the URL where "
        "you submit",
    )
    assert all(url not in f"{message} {hint}" for _, message, hint in found)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "webhook_env: ${SLACK_WEBHOOK_URL}",
            ("5:18 error[notify-webhook-reference] slurm.notify.webhook_env",
             "webhook_env takes the variable's name, not its value ('${SLACK_WEBHOOK_URL}')",
             "write webhook_env: SLACK_WEBHOOK_URL"),
        ),
        (
            "webhook_env: MY_URL",
            ("5:18 error[notify-webhook-name] slurm.notify.webhook_env",
             "'MY_URL' does not name a credential: its value (the URL) would not be masked in "
             "what automodel-launch writes",
             "give the variable a name with WEBHOOK, TOKEN or SECRET as one of its "
             "'_'-separated words, e.g. MY_URL_WEBHOOK or NOTIFY_WEBHOOK_URL"),
        ),
        (
            "webhook_env: 9HOOK",
            ("5:18 error[invalid-env-name] slurm.notify.webhook_env",
             "'9HOOK' is not an environment variable name",
             "names are letters, digits and '_', not starting with a digit (e.g. "
             "NOTIFY_WEBHOOK_URL)"),
        ),
        (
            "webhook_env: 12",
            ("5:18 error[wrong-type] slurm.notify.webhook_env",
             "webhook_env must be the name of an environment variable, not a number",
             "write webhook_env: NOTIFY_WEBHOOK_URL"),
        ),
        (
            "events: [start, finish]",
            ("5:13 error[invalid-notify-event] slurm.notify.events",
             "'finish' is not a notification event",
             "one of start, end, fail, requeue, time_limit_near"),
        ),
        (
            "events: []",
            ("5:13 error[invalid-notify-event] slurm.notify.events",
             "events is an empty list", "leave events out for all of them"),
        ),
        (
            "command: logger -t job",
            ("5:14 error[invalid-notify-command] slurm.notify.command",
             "command must be a list of words, not 'logger -t job'",
             "write the program and its arguments as a list, e.g. [/usr/bin/logger, -t, job]; "
             "it reads the message (JSON) on its standard input"),
        ),
        (
            "command: [logger, '']",
            ("5:14 error[invalid-notify-command] slurm.notify.command",
             "'' is not a command word", "each word is non-empty text; no shell runs the command"),
        ),
    ],
)  # fmt: skip
def test_values_refused(validate: Validate, line: str, expected: tuple[str, str, str]) -> None:
    other = "command: [/bin/true]" if line.startswith("webhook_env") else "webhook_env: A_TOKEN"
    assert diagnostics(validate, line, other) == [expected]


def test_bounds(validate: Validate) -> None:
    found = diagnostics(
        validate, "webhook_env: A_WEBHOOK", "timeout_seconds: 61", "time_limit_near_minutes: 0"
    )
    assert [b for b, _, _ in found] == [
        "6:22 error[out-of-range] slurm.notify.timeout_seconds",
        "7:30 error[out-of-range] slurm.notify.time_limit_near_minutes",
    ]
    assert found[0][1] == "must be at most 60"


def test_nowhere_to_send_is_an_error(validate: Validate) -> None:
    assert diagnostics(validate, "events: [fail]") == [
        (
            "5:5 error[notify-nowhere] slurm.notify",
            "notify has neither webhook_env nor command: nothing would be sent",
            "add webhook_env: NOTIFY_WEBHOOK_URL (a variable holding the URL) or a command; "
            "Slurm's own mail is slurm.mail_type and slurm.mail_user",
        )
    ]


@pytest.mark.parametrize(
    ("time", "message"),
    [
        ("'00:10:00'", "time_limit_near_minutes 10 is not shorter than the time limit "
         "(00:10:00): time_limit_near is sent as the job starts"),
        ("UNLIMITED", "the job has no time limit: time_limit_near is never sent"),
    ],
)  # fmt: skip
def test_time_limit_near_needs_a_limit_past_it(validate: Validate, time: str, message: str) -> None:
    found = validate(
        f"slurm:\n  gpus_per_node: 8\n  time: {time}\n  notify:\n    webhook_env: A_WEBHOOK\n"
    )
    assert [(b, d.message) for b, d in zip(brief(found), found, strict=True)] == [
        ("5:5 warning[notify-near-unlimited] slurm.notify.time_limit_near_minutes", message)
    ]


def test_without_time_limit_near_no_warning(validate: Validate) -> None:
    found = validate(
        "slurm:\n  gpus_per_node: 8\n  time: UNLIMITED\n  notify:\n    webhook_env: A_WEBHOOK\n"
        "    events: [fail]\n"
    )
    assert brief(found) == []


def test_a_webhook_variable_is_a_credential_everywhere() -> None:
    """Its value is masked in what the tool writes, as any secret-named variable's."""
    from automodel_launch.secrets import environment_redactor, is_secret_name

    assert is_secret_name("SLACK_WEBHOOK_URL") and is_secret_name("WEBHOOK")
    url = "https://chat.example.org/hooks/abcdef123456"
    redact = environment_redactor({"TEAM_WEBHOOK_URL": url})
    assert redact(f"posting to {url} failed") == "posting to *** failed"

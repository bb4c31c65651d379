"""Reading what squeue and sacct say: Slurm 22.05's shapes (captured here), 23.02's
(numbers as ``{"set", "infinite", "number"}``, ``job_state`` a list), and output no Slurm
gives: each is a model or :class:`Unreadable` naming the command and field, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.launchers.slurm.output import (
    MAX_DEPTH,
    MAX_TEXT,
    ExitStatus,
    NumberSet,
    Unreadable,
    decode_json,
    deepest,
    epoch,
    iso_time,
    read_job,
    read_sacct,
    squeue_jobs,
    time_limit,
    wait_status,
)

CAPTURED = Path(__file__).parent / "captured"


NUMBER_SET = " or Input should be a valid dictionary or instance of NumberSet"


def job(**fields: Any) -> dict[str, Any]:
    return {"job_id": 5, "job_state": "RUNNING", **fields}


def unreadable(raw: Any) -> str:
    with pytest.raises(Unreadable) as caught:
        read_job(raw)
    return str(caught.value)


def test_squeue_without_a_controller_says_so_in_its_errors() -> None:
    """Slurm 22.05's squeue --json exits 0 with an empty list and an error when it cannot
    reach the controller (captured with an unreachable SlurmctldHost)."""
    document = decode_json((CAPTURED / "squeue_no_controller.json").read_text(), "squeue --json")
    with pytest.raises(Unreadable) as caught:
        squeue_jobs(document)
    assert str(caught.value) == "squeue --json reported an error: Failed while looking for jobs"


@pytest.mark.parametrize(
    ("document", "said"),
    [({"jobs": [], "errors": [{"error": "Unspecified error"}]}, "Unspecified error"),
     ({"jobs": [], "errors": ["\x1b[31mred"]}, "\\x1b[31mred"),
     ({"jobs": [], "errors": {"description": "one"}}, "one")],
)  # fmt: skip
def test_an_error_of_squeue_is_said_cleaned(document: Any, said: str) -> None:
    with pytest.raises(Unreadable) as caught:
        squeue_jobs(document)
    assert str(caught.value) == f"squeue --json reported an error: {said}"


@pytest.mark.parametrize(
    "document", [{"jobs": None}, {"jobs": {}}, [], None, {"errors": []}, {"jobs": "x"}]
)
def test_an_answer_with_no_job_list_is_unreadable(document: Any) -> None:
    with pytest.raises(Unreadable) as caught:
        squeue_jobs(document)
    assert str(caught.value) == "squeue --json gave no job list"


def test_jobs_are_found_by_their_id_and_entries_without_one_are_passed_over() -> None:
    entries = [job(job_id=7), "x", None, job(job_id=True), job(job_id=0), job(job_id="8"),
               job(job_id=2**32), job(job_id=2**32 + 1), job(job_id=float("inf")), {}]  # fmt: skip
    found = squeue_jobs({"jobs": entries, "errors": []})
    assert found == {"7": entries[0], str(2**32): entries[6]}


def test_the_nesting_is_measured_outside_strings() -> None:
    assert deepest('{"a": [1, {"b": "[[[{{{\\"[["}]}') == 3
    assert deepest('"[[[') == 0  # an unterminated string holds the rest
    assert deepest("[[]][[[]]]") == 3
    assert deepest("") == 0


def test_a_deep_document_is_refused_before_the_decoder_sees_it() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(Unreadable) as caught:
        decode_json(deep, "squeue --json")
    assert str(caught.value) == "squeue --json gave JSON nested 100000 deep (at most 64 is read)"
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert deepest(at_limit) == MAX_DEPTH
    decode_json(at_limit, "squeue --json")
    with pytest.raises(Unreadable, match="nested 65 deep"):
        decode_json("[" + at_limit + "]", "squeue --json")


@pytest.mark.parametrize(
    ("text", "said"),
    [("{", "squeue --json gave no JSON (Expecting property name enclosed in double quotes: "
           "line 1 column 2 (char 1))"),
     ("[NaN]", "squeue --json gave no JSON (NaN is not a JSON number)"),
     ("[-Infinity]", "squeue --json gave no JSON (-Infinity is not a JSON number)"),
     ("\ufffd", "squeue --json gave no JSON (Expecting value: line 1 column 1 (char 0))")],
)  # fmt: skip
def test_what_is_not_json_is_unreadable(text: str, said: str) -> None:
    with pytest.raises(Unreadable) as caught:
        decode_json(text, "squeue --json")
    assert str(caught.value) == said


def test_numbers_are_bounded_before_they_are_made() -> None:
    twenty = "9" * 20
    assert decode_json(f"[{twenty}, -{twenty}]", "x") == [int(twenty), -int(twenty)]
    assert decode_json(f"[{twenty}9, {'1' * 5000}, -{'1' * 5000}]", "x") == [float("inf")] * 3
    assert decode_json("[1e400, 1.5]", "x") == [float("inf"), 1.5]


def test_a_22_05_job() -> None:
    read = read_job(job(job_state="PENDING", state_reason="Priority", start_time=0,
                        end_time=1796057364, exit_code=768, time_limit=60, nodes="node[1-2]",
                        cluster="automodel-launch", other={"deep": [1]}))  # fmt: skip
    assert (read.state, read.state_reason, read.nodes, read.cluster) == (
        "PENDING", "Priority", "node[1-2]", "automodel-launch"
    )  # fmt: skip
    assert (epoch(read.start_time), epoch(read.end_time)) == (None, 1796057364)
    assert (wait_status(read.exit_code), time_limit(read.time_limit)) == (3, 60)


def test_a_23_02_job() -> None:
    unset = {"set": False, "infinite": False, "number": 0}
    read = read_job(
        job(
            job_state=["COMPLETED", "REQUEUED"],
            start_time={"set": True, "infinite": False, "number": 1796057364},
            end_time=unset,
            exit_code={
                "status": ["EXITED"],
                "return_code": {"set": True, "number": 2},
                "signal": {"id": unset, "name": ""},
            },
            time_limit={"set": True, "infinite": True, "number": 0},
        )
    )
    assert read.state == "COMPLETED"
    assert (epoch(read.start_time), epoch(read.end_time)) == (1796057364, None)
    assert (wait_status(read.exit_code), time_limit(read.time_limit)) == (2, "UNLIMITED")


@pytest.mark.parametrize(
    ("raw", "code"),
    [(0, 0), (768, 3), (256, 1), (9, 137), (15, 143), (0x10100, 1), (None, None),
     (ExitStatus(return_code=2), 2), (ExitStatus(return_code=NumberSet(number=0)), 0),
     (ExitStatus(return_code=NumberSet(set=False, number=4)), None),
     (ExitStatus(return_code=1, signal={"id": 9}), 137),
     (ExitStatus(return_code=0, signal={"id": NumberSet(number=15)}), 143),
     (ExitStatus(return_code=0, signal={"id": 0}), 0),
     (ExitStatus(return_code=0, signal={}), 0),
     (ExitStatus(return_code=256), None), (ExitStatus(return_code=255), 255),
     (ExitStatus(return_code=-1), None), (ExitStatus(), None)],
)  # fmt: skip
def test_wait_status(raw: Any, code: int | None) -> None:
    assert wait_status(raw) == code


@pytest.mark.parametrize(
    ("raw", "limit"),
    [(None, None), (0, 0), (90, 90), (NumberSet(number=90), 90),
     (NumberSet(set=False, number=90), None), (NumberSet(infinite=True), "UNLIMITED"),
     (NumberSet(set=False, infinite=True), None), (NumberSet(number=-1), None),
     (NumberSet(number=0), 0)],
)  # fmt: skip
def test_time_limit(raw: Any, limit: int | str | None) -> None:
    assert time_limit(raw) == limit


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [(None, None), (0, None), (1, 1), (0.5, 0.5), (NumberSet(number=7), 7),
     (NumberSet(number=7, infinite=True), None), (NumberSet(number=7, set=False), None)],
)  # fmt: skip
def test_epoch(raw: Any, seconds: float | None) -> None:
    assert epoch(raw) == seconds


@pytest.mark.parametrize(
    ("raw", "said"),
    [(job(job_state=[]), "job_state: Input should be a valid string or List should have at "
                          "least 1 item after validation, not 0"),
     (job(job_state=None), "job_state: Input should be a valid string or Input should be a "
                            "valid list"),
     (job(job_state="running"), "job_state: String should match pattern '^[A-Z][A-Z_]{0,31}$' "
                               "or Input should be a valid list"),
     (job(end_time=1e400), "end_time: Input should be a finite number" + NUMBER_SET),
     (job(end_time=-1), "end_time: Input should be greater than or equal to 0" + NUMBER_SET),
     (job(end_time=2**34 + 1), "end_time: Input should be less than or equal to 17179869184"
                               + NUMBER_SET),
     (job(end_time=True), "end_time: Input should be a valid number" + NUMBER_SET),
     (job(state_reason="x" * (MAX_TEXT + 1)), "state_reason: String should have at most 4096 "
                                              "characters"),
     (job(nodes=["node1"]), "nodes: Input should be a valid string"),
     (job(cluster="-me"), "cluster: String should match pattern "
                          "'^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})?$'"),
     (job(time_limit=-1), "time_limit: Input should be greater than or equal to 0" + NUMBER_SET),
     (job(time_limit="60"), "time_limit: Input should be a valid integer" + NUMBER_SET),
     (job(exit_code=2**32 + 1), "exit_code: Input should be less than or equal to 4294967296 or "
                                "Input should be a valid dictionary or instance of ExitStatus"),
     (job(exit_code={"return_code": "1"}), "exit_code.return_code: Input should be a valid "
      "integer" + NUMBER_SET),
     (job(job_state=["RUNNING", "run"]), "job_state.1: String should match pattern "
      "'^[A-Z][A-Z_]{0,31}$'"),
     (job(start_time={"set": True, "number": float("inf")}),
      "start_time.number: Input should be a finite number"),
     ({"job_state": "RUNNING"}, "job_id: Field required"),
     (["x"], "the answer: Input should be a valid dictionary or instance of SqueueJob")],
)  # fmt: skip
def test_a_job_of_the_wrong_shape_names_the_field(raw: Any, said: str) -> None:
    assert unreadable(raw).startswith("squeue --json gave a job this version cannot read (")
    assert unreadable(raw).removeprefix("squeue --json gave a job this version cannot read (") == (
        said + ")"
    )


def test_of_several_fields_the_deepest_path_is_named() -> None:
    assert unreadable(job(nodes=["x"], end_time=-1)) == (
        "squeue --json gave a job this version cannot read (end_time: Input should be greater "
        "than or equal to 0" + NUMBER_SET + ")"
    )


def test_the_value_of_a_field_is_never_in_the_message() -> None:
    said = unreadable(job(state_reason=["hf_" + "a" * 34, "\x1b[2J"]))
    assert said == "squeue --json gave a job this version cannot read (state_reason: Input " \
        "should be a valid string)"  # fmt: skip


def test_texts_up_to_the_bound_are_read() -> None:
    assert read_job(job(state_reason="x" * MAX_TEXT)).state_reason == "x" * MAX_TEXT
    assert read_job(job(job_state=["RUNNING"] * 32)).state == "RUNNING"
    assert "job_state" in unreadable(job(job_state=["RUNNING"] * 33))


# ------------------------------------------------------------------ sacct
@pytest.mark.parametrize(
    ("code", "exit_code"),
    [("0:0", 0), ("1:0", 1), ("3:0", 3), ("255:0", 255), ("0:15", 143), ("0:9", 137),
     ("2:9", 137), ("0:127", 255), ("", None)],
)  # fmt: skip
def test_sacct_exit_codes(code: str, exit_code: int | None) -> None:
    assert read_sacct(f"FAILED|{code}|||||").exit_code == exit_code


@pytest.mark.parametrize("code", ["²:0", "0:²", "256:0", "0:128", "1", "1:", ":1", "-1:0",
                                  "1:0:0", "1" * 4000 + ":0", " 1:0"])  # fmt: skip
def test_sacct_exit_codes_no_slurm_gives(code: str) -> None:
    with pytest.raises(Unreadable) as caught:
        read_sacct(f"FAILED|{code}|||||")
    assert str(caught.value).startswith("sacct gave the exit code ")


def test_a_sacct_line() -> None:
    line = "CANCELLED by 0|0:15|2026-11-30T10:00:00|Unknown|node[1-2]|00:20:00|None"
    read = read_sacct(line)
    assert (read.state, read.exit_code, read.nodes, read.time_limit, read.reason) == (
        "CANCELLED", 143, "node[1-2]", "00:20:00", None
    )  # fmt: skip
    assert read.started_at == iso_time("2026-11-30T10:00:00") and read.ended_at is None
    empty = read_sacct("PENDING||None|None|None assigned||Priority")
    assert (empty.nodes, empty.time_limit, empty.reason, empty.started_at) == (
        None, None, "Priority", None
    )  # fmt: skip
    blank = read_sacct("PENDING|||||x|")
    assert (blank.nodes, blank.time_limit, blank.reason) == (None, "x", None)


def test_sacct_text_is_cleaned() -> None:
    token = "hf_" + "b" * 34
    read = read_sacct(f"FAILED|1:0|||\x1b[2Jnode1|{token}|why {token}")
    assert (read.nodes, read.time_limit, read.reason) == ("\\x1b[2Jnode1", "***", "why ***")


@pytest.mark.parametrize(
    ("line", "said"),
    [("FAILED|1:0", "sacct gave a line this version cannot read (FAILED|1:0)"),
     ("FAILED|1:0||||||x", "sacct gave a line this version cannot read (FAILED|1:0||||||x)"),
     ("failed|1:0|||||", "sacct gave the state 'failed'"),
     ("|1:0|||||", "sacct gave the state ''"),
     ("CANCELLED by me|1:0|||||", "sacct gave the state 'CANCELLED by me'"),
     ("\x1b[2J|1:0|||||", "sacct gave the state '\\\\x1b[2J'")],
)  # fmt: skip
def test_sacct_lines_no_slurm_gives(line: str, said: str) -> None:
    with pytest.raises(Unreadable) as caught:
        read_sacct(line)
    assert str(caught.value) == said


def test_a_sacct_field_past_the_bound_is_unreadable() -> None:
    assert read_sacct("FAILED|1:0|||" + "n" * MAX_TEXT + "||").nodes == "n" * 80 + "..." + "n" * 40
    with pytest.raises(Unreadable, match="cannot read"):
        read_sacct("FAILED|1:0|||" + "n" * (MAX_TEXT + 1) + "||")


@pytest.mark.parametrize(
    "text", ["Unknown", "None", "", "2026-13-30T10:00:00", "2026-11-30 10:00:00",
             "2026-11-30T10:00:0", "12026-11-30T10:00:00", "9999-12-31T23:59:59x"],
)  # fmt: skip
def test_times_sacct_gives_when_there_is_none(text: str) -> None:
    assert iso_time(text) is None


def test_a_sacct_time_is_local_time() -> None:
    import time

    assert iso_time("2026-11-30T10:00:00") == time.mktime((2026, 11, 30, 10, 0, 0, 0, 0, -1))


def test_the_captured_22_05_answer_reads_whole() -> None:
    document = json.loads((CAPTURED / "squeue.json").read_text())
    found = squeue_jobs(document)
    assert sorted(found) == ["1", "2", "3", "4"]
    assert [read_job(found[key]).state for key in sorted(found)] == [
        "CANCELLED", "PENDING", "FAILED", "RUNNING"
    ]  # fmt: skip

"""A cluster's ``ssh_options`` read as ssh reads its command line: every spelling of a
refused option refused (joined values, bundled letters, each form of ``-o``), what only
strengthens the connection accepted, and a word ssh would take for the host refused."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from automodel_launch.remote.clusters import ClusterError, read_remote
from automodel_launch.remote.ssh_options import FLAGS, WITH_VALUE
from tests.conftest import run_cli
from tests.remote.test_pieces import RECIPE, _profiles

OWN = "is this tool's to set (it checks host keys always and runs the connection itself)"
WEAKER = "would weaken host-key checking (this tool checks host keys always)"


def refused(options: list[str]) -> str:
    with pytest.raises(ClusterError) as caught:
        read_remote("lab", {"host": "h", "remote_dir": "/r", "ssh_options": options})
    assert caught.value.hint == "see docs/remote.md for the fields of a cluster"
    return str(caught.value).removeprefix("clusters.lab.ssh_options: ")


# each option that takes a value, joined to it: ssh reads -S/tmp/s as -S /tmp/s
JOINED = {
    "-S/tmp/elsewhere/master": "-S",
    "-E/tmp/ssh.log": "-E",
    "-Oexit": "-O",
    "-Wlogin:22": "-W",
    "-Qcipher": "-Q",
}
# flags bundled in one word: ssh reads -fN as -f -N
BUNDLED = {
    "-fN": "-f",
    "-Nf": "-N",
    "-tt": "-t",
    "-vT": "-T",
    "-qv": "-q",
    "-vvy": "-y",
    "-4M": "-M",
    "-CG": "-G",
    "-Vv": "-V",
    "-vn": "-n",
    "-vs": "-s",
    "-fNT": "-f",
}


@pytest.mark.parametrize("word", sorted(JOINED))
def test_a_value_joined_to_its_option_is_read(word: str) -> None:
    flag = JOINED[word]
    assert refused([word]) == f"{word!r}: {flag} {OWN}: remove it"
    assert refused(["-v", flag, word[2:]]) == f"'{flag} {word[2:]}': {flag} {OWN}: remove it"


@pytest.mark.parametrize("word", sorted(BUNDLED))
def test_bundled_flags_are_each_read(word: str) -> None:
    assert refused(["-i", "~/.ssh/k", word]) == f"{word!r}: {BUNDLED[word]} {OWN}: remove it"


def test_an_option_ending_a_bundle_takes_the_next_word() -> None:
    assert refused(["-vS", "/tmp/s"]) == f"'-vS /tmp/s': -S {OWN}: remove it"
    assert refused(["-4vE", "log"]) == f"'-4vE log': -E {OWN}: remove it"
    assert refused(["-vi", "k", "-vS/x"]) == f"'-vS/x': -S {OWN}: remove it"


@pytest.mark.parametrize(
    ("options", "value"),
    [
        (["-o", "StrictHostKeyChecking=no"], "no"),
        (["-oStrictHostKeyChecking=no"], "no"),
        (["-o", "StrictHostKeyChecking no"], "no"),
        (["-oStrictHostKeyChecking no"], "no"),
        (["-o", "StrictHostKeyChecking = no"], "no"),
        (["-o StrictHostKeyChecking=no"], "no"),
        (["-o", "  stricthostkeychecking\t=\tNO"], "NO"),
        (["-o", "stricthostkeychecking\t\tno\t"], "no"),
        (["-o", 'StrictHostKeyChecking "no"'], '"no"'),
        (["-o", 'StrictHostKeyChecking "no'], '"no'),  # ssh refuses the quote; so is it here
        (["-v", "-oSTRICTHOSTKEYCHECKING=no"], "no"),
        (["-vo", "StrictHostKeyChecking=no"], "no"),
        (["-voStrictHostKeyChecking=no"], "no"),
    ],
)
def test_every_spelling_of_a_setting_is_read(options: list[str], value: str) -> None:
    said = refused(options).partition("': ")[2]
    assert said == f"StrictHostKeyChecking={value} {WEAKER}: write StrictHostKeyChecking=yes, " \
        "or remove it"  # fmt: skip


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("StrictHostKeyChecking=accept-new", f"StrictHostKeyChecking=accept-new {WEAKER}: "
         "write StrictHostKeyChecking=yes, or remove it"),
        ("StrictHostKeyChecking=off", f"StrictHostKeyChecking=off {WEAKER}: write "
         "StrictHostKeyChecking=yes, or remove it"),
        ("StrictHostKeyChecking=ask", f"StrictHostKeyChecking=ask {WEAKER}: write "
         "StrictHostKeyChecking=yes, or remove it"),
        ("StrictHostKeyChecking", f"StrictHostKeyChecking= {WEAKER}: write "
         "StrictHostKeyChecking=yes, or remove it"),
        ("BatchMode=no", "BatchMode=no would let ssh ask for a password nobody answers: "
         "write BatchMode=yes, or remove it"),
        ("UserKnownHostsFile=/dev/null", f"UserKnownHostsFile=/dev/null {WEAKER}: remove it"),
        ("UserKnownHostsFile ~/.ssh/k /dev/null", f"UserKnownHostsFile=~/.ssh/k /dev/null "
         f"{WEAKER}: remove it"),
        ("UserKnownHostsFile=none", f"UserKnownHostsFile=none {WEAKER}: remove it"),
        ('UserKnownHostsFile /dev/null "k', f'UserKnownHostsFile=/dev/null "k {WEAKER}: remove it'),
        ("KnownHostsCommand=/bin/echo %H %K", f"KnownHostsCommand {WEAKER}: remove it"),
        ("NoHostAuthenticationForLocalhost=yes", f"NoHostAuthenticationForLocalhost=yes "
         f"{WEAKER}: write NoHostAuthenticationForLocalhost=no, or remove it"),
        ("LogLevel=QUIET", "LogLevel=QUIET would hide why ssh failed, which this tool reports: "
         "remove it"),
        ("LogLevel fatal", "LogLevel=fatal would hide why ssh failed, which this tool reports: "
         "remove it"),
        ("ControlMaster=auto", f"ControlMaster {OWN}: remove it"),
        ("ControlPath=/tmp/s", f"ControlPath {OWN}: remove it"),
        ("ControlPersist=yes", f"ControlPersist {OWN}: remove it"),
        ("ForkAfterAuthentication=yes", f"ForkAfterAuthentication {OWN}: remove it"),
        ("LocalCommand=sh", f"LocalCommand {OWN}: remove it"),
        ("PermitLocalCommand=yes", f"PermitLocalCommand {OWN}: remove it"),
        ("RemoteCommand=sh", f"RemoteCommand {OWN}: remove it"),
        ("RequestTTY=force", f"RequestTTY {OWN}: remove it"),
        ("SessionType=none", f"SessionType {OWN}: remove it"),
        ("StdinNull=yes", f"StdinNull {OWN}: remove it"),
    ],
)  # fmt: skip
def test_each_refused_setting_says_why_and_the_fix(setting: str, message: str) -> None:
    assert refused(["-o", setting]) == f"'-o {setting}': {message}"
    assert refused([f"-o{setting}"]) == f"'-o{setting}': {message}"


@pytest.mark.parametrize(
    "options",
    [
        ["-o", "StrictHostKeyChecking=yes"],
        ["-oStrictHostKeyChecking yes"],
        ["-o", "stricthostkeychecking = TRUE"],
        ["-o", 'StrictHostKeyChecking "yes"'],
        ["-o", "BatchMode=yes", "-oBatchMode true"],
        ["-o", "UserKnownHostsFile=/k/known_hosts"],
        ["-o", "NoHostAuthenticationForLocalhost=no", "-o", "LogLevel=VERBOSE"],
        ["-oNoHostAuthenticationForLocalhost false", "-o", "UserKnownHostsFile /k/a /k/b"],
        ["-i", "-S/tmp/s"],  # the value of -i, a file so named: ssh reads it so too
        ["-vvv", "-4Cv", "-i~/.ssh/k", "-p2222", "-l", "me", "-J", "jump", "-F", "none"],
        ["-L8080:localhost:80", "-R", "9000:localhost:9000", "-D1080", "-Ax"],
        ["-oProxyCommand=ssh -W %h:%p -S /tmp/s jump"],  # the proxy's own command line
        ["-o", "ProxyJump me@jump"],
    ],
)
def test_what_only_keeps_or_strengthens_is_accepted(options: list[str]) -> None:
    remote = read_remote("lab", {"host": "h", "remote_dir": "/r", "ssh_options": options})
    assert remote.ssh_options == options


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["evil.example.org"], "'evil.example.org' is no option: ssh would take it for the host; "
         "write each option with its value (-i KEY, -o Key=Value)"),
        (["-i", "k", "extra"], "'extra' is no option: ssh would take it for the host; write each "
         "option with its value (-i KEY, -o Key=Value)"),
        (["-o", "ProxyJump", "jump"], "'jump' is no option: ssh would take it for the host; "
         "write each option with its value (-i KEY, -o Key=Value)"),
        (["-"], "'-' is no option: ssh would take it for the host; write each option with its "
         "value (-i KEY, -o Key=Value)"),
        (["--", "-v"], "'--' would end ssh's options: remove it"),
        (["-v", "-i"], "'-i': -i needs a value: give it as the next item"),
        (["-vo"], "'-vo': -o needs a value: give it as the next item"),
        (["-Z"], "'-Z': -Z is not an option of ssh: remove it"),
        (["-vZ"], "'-vZ': -Z is not an option of ssh: remove it"),
        (["-P", "tag"], "'-P': -P is read as a flag by OpenSSH 9.2 and as -P TAG by later "
         "releases: remove it"),
        (["-Ptag"], "'-Ptag': -P is read as a flag by OpenSSH 9.2 and as -P TAG by later "
         "releases: remove it"),
    ],
)  # fmt: skip
def test_what_ssh_would_read_otherwise_is_refused(options: list[str], message: str) -> None:
    assert refused(options) == message


def test_the_letters_are_those_of_the_ssh_here() -> None:
    """ssh's usage line lists its flags, then each option taking a value."""
    if shutil.which("ssh") is None:
        pytest.skip("no OpenSSH client here")
    usage = subprocess.run(["ssh"], capture_output=True, text=True, check=False).stderr
    flags = usage.split("[-", 1)[1].split("]", 1)[0]
    assert sorted(flags) == sorted(FLAGS)
    valued = {part[0] for part in usage.split("[-")[2:]}
    assert valued - {"P"} == set(WITH_VALUE)


def test_the_refusal_names_the_file_the_cluster_and_the_option(tmp_path: Path) -> None:
    _profiles(
        tmp_path,
        "clusters:\n  lab:\n    host: h\n    remote_dir: /r\n    ssh_options: [-fN]\n",
    )
    (tmp_path / "r.yaml").write_text(RECIPE)
    done = run_cli(
        "render", "r.yaml", "--remote", "lab", "--job-dir", "out/look", cwd=tmp_path,
        environ={"XDG_CONFIG_HOME": str(tmp_path / "config")},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    file = tmp_path / "config" / "automodel-launch" / "profiles.yaml"
    assert done.stderr == (
        f"error: {file}: clusters.lab.ssh_options: '-fN': -f {OWN}: remove it\n"
        "    hint: see docs/remote.md for the fields of a cluster\n"
    )
    assert not (tmp_path / "out").exists()

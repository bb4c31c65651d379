"""Time ``automodel-launch lsp`` against yaml-language-server on one 300-line recipe.

Both servers run in the same run, on the same document (under ``examples/``, never
written to disk), driven by the same stdio client (``tests/integration/lsp/client.py``):
yaml-language-server with the exported schema bound through ``yaml.schemas`` (as
``automodel-launch schema --editor vscode`` prints it), ours with its defaults. Each
timed edit is one ``didChange`` (the whole text: a new ``job_name``, and ``master_port``
flipping between a valid and an invalid port so every check has something new to
say), timed until the server's next ``publishDiagnostics`` for the document; edits are
a quiet spell apart, as a user's are.

Then the memory of our server (its resident set, from /proc) after 10 and after 1,000
edits, each edit waited for.

Targets: our median at least 3x faster than yaml-language-server's, and under 20 ms;
memory after 1,000 edits within 1.5x of after 10. Exits 0 whatever the numbers unless
``--check`` (then 1 on a miss). ``nox -s bench`` runs it after bench_validate.py.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.lsp.client import (  # noqa: E402
    SERVER_JS,
    YamlLanguageServer,
    server_command,
    yaml_settings,
)

SCHEMA = ROOT / "schemas" / "automodel-launch.schema.json"
CORPUS = ROOT.parent / "shared" / "corpus"
BASE = Path("automodel-head/llm_finetune/nemotron/customizer_nemotron_nano_full_sft_chat.yaml")
URI = (ROOT / "examples" / "_bench_lsp.yaml").as_uri()
LINES = 300
SPEED_TARGET = 3.0
MEDIAN_TARGET_MS = 20.0
MEMORY_TARGET = 1.5
SLURM = """\
slurm:
  job_name: {job_name}
  nodes: 2
  ntasks_per_node: 8
  gpus_per_node: 8
  time: "04:00:00"
  account: my_account
  partition: batch
  container_image: nvcr.io#nvidia/nemo:25.04
  master_port: {port}
  hf_home: /lustre/hf_cache
  extra_mounts:
    - /lustre/data:/data
    - source: /lustre/models
      dest: /models
  env_vars:
    HF_TOKEN: ${{HF_TOKEN}}
    NCCL_DEBUG: WARN
"""


class Client(YamlLanguageServer):
    """The same client for both servers; ours takes pushed settings (it pulls none)."""

    def __init__(self, command: list[str], settings: dict[str, Any], pulls: bool) -> None:
        super().__init__(command, settings, root=ROOT, timeout=30.0)
        self._config_pulled = not pulls

    def change(self, uri: str, text: str) -> float:
        """Seconds from didChange to the next publishDiagnostics for ``uri``."""
        with self._cv:
            version = self._versions[uri] = self._versions[uri] + 1
            before = len(self._published(uri))
        start = time.perf_counter()
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )
        self._wait_for(lambda: len(self._published(uri)) > before, 30.0, "publishDiagnostics")
        return time.perf_counter() - start

    def rss_kib(self) -> int:
        assert self.proc is not None
        status = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="ascii")
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1])


def recipe(corpus: Path) -> str:
    """A real recipe cut at a top-level key and given a slurm: section: 300 lines."""
    base = (corpus / BASE).read_text(encoding="utf-8").splitlines()
    room = LINES - SLURM.count("\n")
    cut = max(i for i, line in enumerate(base[:room]) if line[:1].isalpha())
    lines = base[:cut]
    lines += ["# padding"] * (room - len(lines))
    return "\n".join(lines) + "\n" + "{slurm}"


def document(template: str, edit: int) -> str:
    port = 13742 if edit % 2 else 99999
    return template.replace("{slurm}", SLURM.format(job_name=f"run_{edit}", port=port))


def timed_edits(
    client: Client, template: str, count: int, pause: float, memory: dict[int, int]
) -> list[float]:
    """``count`` edits a ``pause`` apart; the server's memory after the 10th in ``memory``."""
    client.open(URI, document(template, 0))
    client.diagnostics(URI, settle=0.5)
    times = []
    for edit in range(1, count + 1):
        time.sleep(pause)
        times.append(client.change(URI, document(template, edit)))
        if edit == 10:
            memory[10] = client.rss_kib()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=50, help="timed edits per server (10+)")
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between edits")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    node = shutil.which("node")
    if node is None or not SERVER_JS.exists():
        print("yaml-language-server is not installed: npm ci --prefix tests/integration/lsp")
        return 1 if args.check else 0
    template = recipe(args.corpus)
    assert document(template, 1).count("\n") == LINES, document(template, 1).count("\n")
    ours_command = [sys.executable, "-m", "automodel_launch", "lsp"]
    peer_settings = yaml_settings({str(SCHEMA): ["examples/**/*.yaml"]})
    memory: dict[int, int] = {}
    with Client(ours_command, {"automodelLaunch": {}}, pulls=False) as ours:
        ours_times = timed_edits(ours, template, args.edits, args.pause, memory)
        for edit in range(args.edits + 1, 1000 + 1):  # the rest of 1,000, each waited for
            ours.change(URI, document(template, edit))
        memory_1000 = ours.rss_kib()
    with Client(server_command(node), peer_settings, pulls=True) as peer:
        peer_times = timed_edits(peer, template, args.edits, args.pause, {})
    memory_10 = memory[10]
    ours_ms = statistics.median(ours_times) * 1000
    peer_ms = statistics.median(peer_times) * 1000
    speedup = peer_ms / ours_ms
    growth = memory_1000 / memory_10
    print(f"didChange -> publishDiagnostics, {LINES}-line recipe, {args.edits} edits each")
    for name, times in (("automodel-launch lsp", ours_times), ("yaml-language-server", peer_times)):
        ms = sorted(t * 1000 for t in times)
        print(
            f"  {name:22} median {statistics.median(ms):7.1f} ms   "
            f"p90 {ms[int(len(ms) * 0.9) - 1]:7.1f} ms   max {ms[-1]:7.1f} ms"
        )
    print(f"  speed-up {speedup:.1f}x (target >= {SPEED_TARGET}x); "
          f"median {ours_ms:.1f} ms (target < {MEDIAN_TARGET_MS} ms)")  # fmt: skip
    print(
        f"memory of automodel-launch lsp: {memory_10 / 1024:.1f} MiB after 10 edits, "
        f"{memory_1000 / 1024:.1f} MiB after 1000: {growth:.2f}x (target <= {MEMORY_TARGET}x)"
    )
    missed = speedup < SPEED_TARGET or ours_ms >= MEDIAN_TARGET_MS or growth > MEMORY_TARGET
    if missed:
        print("a target was missed")
    return 1 if missed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Run as a script: the keyword text (``a! b **``) ``inspect.signature`` gives for each
dotted target read from stdin (one a line), as JSON on stdout; null when the target's
module does not import here or ``inspect`` has no signature for it. A child process:
importing AutoModel's modules patches libraries and installs import hooks."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import sys
import warnings


def text(signature: inspect.Signature) -> str:
    words = []
    for p in signature.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL):
            continue
        if p.kind is p.VAR_KEYWORD:
            words.append("**")
        else:
            words.append(p.name + ("!" if p.default is p.empty else ""))
    return " ".join(words)


def find(target: str, failed: dict[str, bool]) -> object:
    parts = target.split(".")
    for cut in (len(parts) - 1, len(parts) - 2):
        module = ".".join(parts[:cut])
        if failed.get(module):
            continue
        try:
            obj: object = importlib.import_module(module)
        except Exception:
            failed[module] = True
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise LookupError(target)


def main() -> None:
    failed: dict[str, bool] = {}
    found: dict[str, str | None] = {}
    warnings.simplefilter("ignore")
    for target in sys.stdin.read().split():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                found[target] = text(inspect.signature(find(target, failed)))  # type: ignore[arg-type]
            except Exception:
                found[target] = None
    json.dump(found, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()

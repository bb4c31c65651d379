"""What YAML 1.1 (PyYAML, which AutoModel loads recipes with) makes of a plain scalar.

This tool reads YAML 1.2, like yaml-language-server and SkyPilot. The two disagree on
unquoted values such as ``1:00:00`` (1.1: the integer 3600, base 60) or ``yes``
(1.1: true). The resolvers below are PyYAML's, so the warning says exactly what
AutoModel would see.
"""

from __future__ import annotations

import re
from typing import Any

_BOOL = re.compile(
    r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"
)
_INT = re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
)
_FLOAT = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


def resolve(text: str) -> Any:
    """The value PyYAML's safe loader constructs for this plain scalar."""
    if _NULL.fullmatch(text):
        return None
    if _BOOL.fullmatch(text):
        return text.lower() in ("yes", "true", "on")
    if _INT.fullmatch(text):
        try:
            return parse_int(text)
        except ValueError:  # past MAX_INT_DIGITS; PyYAML itself fails on it
            return text
    if _FLOAT.fullmatch(text):
        return parse_float(text)
    return text


MAX_INT_DIGITS = 1000
"""Longer integers stay text: Python refuses to print ints past 4,300 digits."""


def parse_int(text: str) -> int:
    clean = text.replace("_", "")
    if len(clean) > MAX_INT_DIGITS:
        raise ValueError("too many digits")
    sign = -1 if clean.startswith("-") else 1
    body = clean.lstrip("+-")
    if body == "0":
        return 0
    if body.startswith("0b"):
        return sign * int(body[2:], 2)
    if body.startswith("0x"):
        return sign * int(body[2:], 16)
    if body.startswith("0"):
        return sign * int(body, 8)
    if ":" in body:
        value = 0
        for digit in body.split(":"):
            value = value * 60 + int(digit)
        return sign * value
    return sign * int(body)


def parse_float(text: str) -> float:
    clean = text.replace("_", "").lower()
    if clean.endswith("inf"):
        return float("-inf") if clean.startswith("-") else float("inf")
    if clean.endswith("nan"):
        return float("nan")
    if ":" in clean:
        sign = -1.0 if clean.startswith("-") else 1.0
        value, base = 0.0, 1.0
        for digit in reversed(clean.lstrip("+-").split(":")):  # in PyYAML's order: the
            value += float(digit) * base  # same float to the last bit (1:40:0.03 is
            base *= 60  # 6000.030000000001, not 6000.03)
        return sign * value
    return float(clean)


def differs(text: str, value_12: Any) -> Any | None:
    """PyYAML's reading of ``text`` when it differs from the YAML 1.2 value, else None."""
    value_11 = resolve(text)
    if type(value_11) is type(value_12) and (value_11 == value_12 or value_11 != value_11):
        return None
    if isinstance(value_11, float) and isinstance(value_12, int) and value_11 == value_12:
        return None
    return value_11 if value_11 is not None or value_12 is not None else None


_TIMESTAMP = re.compile(
    r"^(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
    r"(?:(?:[Tt]|[ \t]+)(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r"(?:\.(?P<fraction>[0-9]*))?"
    r"(?:[ \t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9]{1,2})(?::(?P<tz_minute>[0-9]{2}))?))?)?$"
)
_DATE_ONLY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def resolve_document_scalar(text: str) -> Any:
    """:func:`resolve`, and the timestamps PyYAML also reads (``2024-01-05`` is a date):
    the value AutoModel gets for an unquoted scalar."""
    stamp = timestamp(text)
    return stamp if stamp is not None else resolve(text)


def timestamp(text: str) -> Any:
    """PyYAML's date or datetime for a plain scalar, or None when it is not one."""
    import datetime

    if _DATE_ONLY.fullmatch(text):
        try:
            return datetime.date(int(text[:4]), int(text[5:7]), int(text[8:10]))
        except ValueError:
            return None  # PyYAML fails on 2024-13-01; the loader test names such files
    match = _TIMESTAMP.fullmatch(text)
    if match is None or match.group("hour") is None:
        return None
    parts = match.groupdict()
    fraction = (parts["fraction"] or "")[:6].ljust(6, "0")
    zone = None
    if parts["tz_sign"]:
        delta = datetime.timedelta(
            hours=int(parts["tz_hour"]), minutes=int(parts["tz_minute"] or 0)
        )
        zone = datetime.timezone(-delta if parts["tz_sign"] == "-" else delta)
    elif parts["tz"]:
        zone = datetime.timezone.utc
    try:
        return datetime.datetime(
            int(parts["year"]), int(parts["month"]), int(parts["day"]),
            int(parts["hour"]), int(parts["minute"]), int(parts["second"]),
            int(fraction), tzinfo=zone,
        )  # fmt: skip
    except ValueError:
        return None

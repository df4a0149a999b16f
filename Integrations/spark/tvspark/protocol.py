"""The line protocol of `tokenverify verify` (spec §6) as the Spark job speaks it.

Every row becomes one request line. The job numbers the lines it sends to one child process
1, 2, 3, … (it never sends a blank line, so that number is the `line` the child answers with) and
sets the same number as the request `id` wherever it builds the request itself: a bare token is
wrapped as `{"id":N,"token":"…"}` and a table row as `{"id":N,"token":…,"device":…}`. A line that
already is a JSON request is sent unchanged (rewriting it could change its answer: a duplicate
member, an unknown one, invalid JSON) and is matched by `line` alone, as is a bare token that
cannot be wrapped without changing its answer (not UTF-8, or too long once wrapped).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

# The answer's members, in output order, and their Spark types (`aud`: the string, or an array
# as its JSON text; `exp`: a double, since a NumericDate may have a fraction).
ANSWER_FIELDS: tuple[str, ...] = (
    "valid", "reason", "detail", "jti", "sub", "aud", "kid", "alg", "exp", "role",
)
ANSWER_SCHEMA = ", ".join(f"`{name}` {dict(valid='boolean', exp='double').get(name, 'string')}"
                          for name in ANSWER_FIELDS)
# Context members a table may carry as columns (spec §9).
CONTEXT_COLUMNS: tuple[str, ...] = ("device", "object", "channel", "command", "at")

DEFAULT_MAX_LINE_BYTES = 65536

_SAFE_TOKEN = re.compile(rb"[A-Za-z0-9_.\-]*")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Request:
    """One line for the child: its bytes (no line break) and whether it carries our `id`."""

    text: bytes
    has_id: bool


def content(raw: bytes) -> bytes:
    """A line as `verify` sees it: without a trailing CR, spaces and tabs around it removed."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    return raw.strip(b" \t")


def is_blank(raw: bytes) -> bool:
    """True for a line `verify` skips without answering."""
    return not content(raw)


def line_request(raw: bytes, seq: int, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Request:
    """The request for one non-blank input line (`raw` without its `\\n`)."""
    if b"\n" in raw:
        raise ValueError("an input line cannot contain a line break")
    token = content(raw)
    if token.startswith(b"{"):
        return Request(raw, False)
    if _SAFE_TOKEN.fullmatch(token):
        wrapped = b'{"id":%d,"token":"%s"}' % (seq, token)
    else:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return Request(raw, False)
        wrapped = b'{"id":%d,"token":%s}' % (seq, json.dumps(text).encode("ascii"))
    # The limit counts the line as read; a wrapped line must not cross it where the raw one did not.
    if len(wrapped) > max_line_bytes or len(raw) > max_line_bytes:
        return Request(raw, False)
    return Request(wrapped, True)


def json_value(name: str, value: Any) -> str:
    """A table cell as the JSON text of a request member (`at` written as a number when it
    spells one, dates in RFC 3339)."""
    if name == "at" and isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return value.strip()  # a CSV cell "1800000000" is the NumericDate it spells
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        if getattr(value, "tzinfo", None) is not None and text.endswith("+00:00"):
            text = text[:-6] + "Z"
        return json.dumps(text)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def table_request(seq: int, token: Any, context: Mapping[str, Any]) -> Request:
    """The request for one table row: its token (None gives `"token":null`, a malformed
    request) and the context columns that are not null."""
    parts = [f'{{"id":{seq},"token":{json_value("token", token)}']
    for name in CONTEXT_COLUMNS:
        value = context.get(name)
        if value is not None:
            parts.append(f',"{name}":{json_value(name, value)}')
    parts.append("}")
    return Request("".join(parts).encode("utf-8"), True)


def answer_identity(text: bytes) -> tuple[Any, Any]:
    """The `line` and `id` an answer line carries (`id` None when it has none)."""
    answer = json.loads(text)
    if not isinstance(answer, dict) or "line" not in answer or "valid" not in answer:
        raise ValueError(f"not an answer line: {text[:200]!r}")
    return answer["line"], answer.get("id")


def is_answer_to(text: bytes, seq: int, has_id: bool) -> bool:
    """True when the answer line is the answer to request `seq` (its `line`, and its `id` when
    the job set one). The fast path reads the prefix `verify` writes (`{"line":N,"id":M,`);
    any other shape is parsed in full."""
    prefix = b'{"line":%d,"id":%d,' % (seq, seq) if has_id else b'{"line":%d,' % seq
    if text.startswith(prefix):
        return True
    line, id_ = answer_identity(text)
    return line == seq and (not has_id or id_ == seq)

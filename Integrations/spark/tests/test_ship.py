"""ship: a session's later jobs add only the files it does not have yet (by content)."""

from __future__ import annotations

from pathlib import Path

from tvspark.ship import ship


class _Context:
    """The part of a SparkContext that ship uses, recording what it is given."""

    def __init__(self) -> None:
        self.added: list[tuple[str, str]] = []

    def addFile(self, path: str) -> None:  # noqa: N802 - SparkContext's name
        self.added.append(("file", path))

    def addArchive(self, path: str) -> None:  # noqa: N802
        self.added.append(("archive", path))

    def addPyFile(self, path: str) -> None:  # noqa: N802
        self.added.append(("pyfile", path))


class _Session:
    def __init__(self, context: _Context) -> None:
        self.sparkContext = context


def test_a_session_gets_each_file_once_and_a_changed_file_again(tmp_path: Path) -> None:
    binary, keys = tmp_path / "tokenverify", tmp_path / "keys.jwks"
    binary.write_bytes(b"#!/bin/sh\n")
    keys.write_text('{"keys":[]}')
    context = _Context()
    first = ship(_Session(context), str(binary), [str(keys)])
    kinds = [kind for kind, _ in context.added]
    assert sorted(kinds) == ["file", "file", "pyfile"]

    again = ship(_Session(context), str(binary), [str(keys)])
    assert again == first and len(context.added) == 3  # nothing added twice

    keys.write_text('{"keys":[{"kty":"OKP"}]}')  # new content: a new staged name, added once
    changed = ship(_Session(context), str(binary), [str(keys)])
    assert changed.names[str(keys)] != first.names[str(keys)]
    assert [kind for kind, _ in context.added[3:]] == ["file"]
    assert context.added[3][1].endswith(changed.names[str(keys)])

    other = _Context()  # another session (a new SparkContext) gets everything
    ship(_Session(other), str(binary), [str(keys)])
    assert sorted(kind for kind, _ in other.added) == ["file", "file", "pyfile"]

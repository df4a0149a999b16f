"""A stateful property test of `fetch` (spec §7, docs/fetch.md): Hypothesis changes what a local HTTPS publisher
serves (newer, replayed and same-iat lists, another issuer's list directly or through a redirect, key sets, replayed
key sets, a cache's 304) and what the operator does to DIR (removes the list file, restores an older file by hand),
runs a one-shot `fetch`, and after each run checks it against the model (tvmodel.fetch_model) and the invariants:
the floor (the iat of the file in place, or recorded in DIR/.fetch-state.json) never decreases, another issuer's
list never lands, a dropped kid never comes back without --readmit-kid, and a `verify` started afresh never answers
valid for a token that the newest list fetch ever wrote marks.

TVMODEL_KNOWN (comma separated) turns off the rules that provoke a finding already known, so that a run can look
past it: "9" another issuer's list, "10" the removed list file, "11" the hand-restored files and the cache's 304,
"14" key sets that bring a dropped kid back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule, run_state_machine_as_test

from tvmodel.fetch_model import (
    KEY_ISSUERS,
    KEYS_PATH,
    KIDS,
    LIST_PATH,
    FetchModel,
    KeySetBody,
    ListBody,
    Outcome,
    Redirect,
)
from tvmodel.fetch_world import (
    IATS,
    REASON_WORDS,
    FetchRun,
    Material,
    expected_action,
    jws_payload,
    list_iat,
    recorded_iat,
    run_fetch,
    supports_readmit,
    the_file,
    verify_fresh,
)
from tvmodel.model import ISS_A, known_broken
from tvmodel.publisher import Publisher
from tvmodel.stats import STATS
from tvmodel.world import write_atomic

# Sequences a profile runs: a fetch and a fresh verify cost about half a second each on a shared 2-core machine,
# so `ci` stays within about 2 minutes.
EXAMPLES = {"ci": 60, "long": 600}
ENTRIES = st.tuples(st.integers(0, 2), st.integers(0, 2)).map(
    lambda values: tuple((idx, value) for idx, value in zip((1, 2), values, strict=True) if value)
)
KEY_SETS = st.sets(st.sampled_from(KIDS), min_size=1).map(lambda kids: tuple(sorted(kids)))


class World:
    """The session's publisher and material (lists name the publisher's URL, so both live as long)."""

    def __init__(self, binary: str, root: Path) -> None:
        self.binary = binary
        self.root = root
        self.publisher = Publisher(root / "publisher")
        self.material = Material(binary, root / "material")
        self.urls = {path: self.publisher.url(path) for path in (KEYS_PATH, LIST_PATH)}
        self.tokens = self.material.token_lines(self.urls[LIST_PATH])
        self.readmit = supports_readmit(binary)

    def body(self, content: KeySetBody | ListBody) -> bytes:
        if isinstance(content, ListBody):
            return self.material.status_list(content, self.urls[LIST_PATH])
        return self.material.key_set(content)


def answers_for(list_issuer: str | None, kid: str) -> bool:
    """§4c: a list answers for tokens of its issuer; one of no issuer for tokens whose key names none."""
    token_iss = KEY_ISSUERS[kid] or ISS_A
    return list_issuer == token_iss or (list_issuer is None and KEY_ISSUERS[kid] is None)


class FetchMachine(RuleBasedStateMachine):
    world: World

    def __init__(self) -> None:
        super().__init__()
        STATS.sequences += 1
        self.out = self.world.root / f"seq-{STATS.sequences}"
        self.model = FetchModel()
        self.known = known_broken()
        self.served_lists: list[ListBody] = []
        self.served_keys: list[KeySetBody] = []
        self.mirrors = 0
        self.floor = float("-inf")  # the greatest floor seen after a fetch
        self.bound_issuer: tuple[str | None] | None = None  # the issuer of the first list fetch wrote
        self.world.publisher.clear()

    # --- the publisher -------------------------------------------------------------------------------------------

    def serve(self, path: str, content: KeySetBody | ListBody, redirect: bool = False) -> None:
        """Serves `content` at `path`, or at a new mirror path that `path` redirects to; a cache's 304 ends."""
        STATS.steps += 1
        publisher = self.world.publisher
        publisher.cache_304 = self.model.cache_304 = False
        if isinstance(content, ListBody):
            self.served_lists.append(content)
        else:
            self.served_keys.append(content)
        if redirect:
            self.mirrors += 1
            mirror = f"/m/{self.mirrors}"
            publisher.serve(mirror, self.world.body(content))
            publisher.redirect(path, mirror)
            self.model.served[mirror] = content
            self.model.served[path] = Redirect(mirror)
        else:
            publisher.serve(path, self.world.body(content))
            self.model.served[path] = content

    @initialize(keys=KEY_SETS, entries=ENTRIES)
    def start(self, keys: KeySetBody, entries: tuple[tuple[int, int], ...]) -> None:
        self.serve(KEYS_PATH, tuple(sorted({*keys, "kA"})))
        self.serve(LIST_PATH, ListBody("kA", IATS[1], entries))

    @rule(signer=st.sampled_from(["kA", "kC"]), entries=ENTRIES, redirect=st.booleans())
    def serve_newer(self, signer: str, entries: tuple[tuple[int, int], ...], redirect: bool) -> None:
        """A newer list of issuer A (signed by its first or its rotated key)."""
        newest = max(sl.iat for sl in self.served_lists)
        assume(newest < IATS[-1])
        self.serve(LIST_PATH, ListBody(signer, min(iat for iat in IATS if iat > newest), entries), redirect)

    @rule(data=st.data())
    def serve_replayed(self, data: st.DataObject) -> None:
        """An older list served again (a stale mirror or a replayed response)."""
        self.serve(LIST_PATH, data.draw(st.sampled_from(self.served_lists)))

    @rule(signer=st.sampled_from(["kA", "kC"]), entries=ENTRIES)
    def serve_same_iat(self, signer: str, entries: tuple[tuple[int, int], ...]) -> None:
        """A list with the iat of the newest served and other (or the same) entries."""
        newest = max(sl.iat for sl in self.served_lists)
        self.serve(LIST_PATH, ListBody(signer, newest, entries))

    @precondition(lambda self: "9" not in self.known)
    @rule(signer=st.sampled_from(["kB", "k0"]), later=st.booleans(), entries=ENTRIES, redirect=st.booleans())
    def serve_other_issuer(
        self, signer: str, later: bool, entries: tuple[tuple[int, int], ...], redirect: bool
    ) -> None:
        """Another issuer's list (B's, or one of no issuer) for A's URL, directly or through a redirect; `later`:
        newer than any served, else the newest served's iat."""
        newest = max(sl.iat for sl in self.served_lists)
        assume(not later or newest < IATS[-1])
        iat = min(iat for iat in IATS if iat > newest) if later else newest
        self.serve(LIST_PATH, ListBody(signer, iat, entries), redirect)

    @rule(keys=KEY_SETS)
    def serve_keys(self, keys: KeySetBody) -> None:
        assume("14" not in self.known or not set(keys) & self.model.dropped())
        self.serve(KEYS_PATH, keys)

    @precondition(lambda self: "14" not in self.known)
    @rule(data=st.data())
    def serve_replayed_keys(self, data: st.DataObject) -> None:
        """An older key set served again: it may bring back a kid a later set dropped."""
        self.serve(KEYS_PATH, data.draw(st.sampled_from(self.served_keys)))

    @precondition(lambda self: "11" not in self.known)
    @rule()
    def cache_304(self) -> None:
        """A cache in front of the publisher answers 304 to every conditional request until what is served
        changes."""
        STATS.steps += 1
        self.world.publisher.cache_304 = self.model.cache_304 = True

    # --- the operator --------------------------------------------------------------------------------------------

    def folder(self, path: str) -> Path:
        return self.out / ("keys" if path == KEYS_PATH else "status-lists")

    @precondition(lambda self: "10" not in self.known and self.model.files[LIST_PATH] is not None)
    @rule()
    def remove_list(self) -> None:
        STATS.steps += 1
        file = the_file(self.folder(LIST_PATH))
        assert file is not None, "the list file the model has in place"
        file.unlink()
        self.model.files[LIST_PATH] = None
        self.check_fresh_verify()

    @precondition(lambda self: "11" not in self.known and bool(self.model.written))
    @rule(data=st.data())
    def restore_list(self, data: st.DataObject) -> None:
        """The operator writes an earlier list fetch wrote back by hand."""
        self.restore(LIST_PATH, data.draw(st.sampled_from(self.model.written)))

    @precondition(lambda self: "11" not in self.known and bool(self.model.written_keys))
    @rule(data=st.data())
    def restore_keys(self, data: st.DataObject) -> None:
        self.restore(KEYS_PATH, data.draw(st.sampled_from(self.model.written_keys)))

    def restore(self, path: str, content: KeySetBody | ListBody) -> None:
        STATS.steps += 1
        assert path in self.model.records, "fetch wrote this URL's file before"
        file = the_file(self.folder(path))
        if file is None:  # removed: fetch's name for it is in the state
            state = json.loads((self.out / ".fetch-state.json").read_text())
            file = self.out / str(state["entries"][self.world.urls[path]]["file"])
        note(f"restore {content} by hand")
        write_atomic(file, self.world.body(content))
        self.model.files[path] = content
        self.check_fresh_verify()

    # --- fetch and the checks after it ---------------------------------------------------------------------------

    @rule()
    def fetch_plain(self) -> None:
        """`fetch` without --readmit-kid (two rules of the same: fetches are about a quarter of the steps)."""
        self.fetch(None)

    @rule()
    def fetch_again(self) -> None:
        self.fetch(None)

    @rule(readmit=st.sampled_from([None, *KIDS]))
    def fetch(self, readmit: str | None) -> None:
        STATS.steps += 1
        readmitted = frozenset({readmit} if readmit is not None and self.world.readmit else ())
        before = {path: self.file_bytes(path) for path in (KEYS_PATH, LIST_PATH)}
        dropped = self.model.dropped() - readmitted
        in_place = dict(self.model.files)
        records = {path: record.content for path, record in self.model.records.items()}
        outcomes = self.model.fetch(readmitted)
        ran = run_fetch(self.world.binary, self.out, self.world.urls, self.world.publisher.ca_file, readmitted)
        note(f"fetch {sorted(readmitted)} -> {ran.status}: {ran.stderr.strip()}")
        after = {path: self.file_bytes(path) for path in (KEYS_PATH, LIST_PATH)}
        self.check_issuer(before[LIST_PATH], after[LIST_PATH])
        self.check_floor(before[LIST_PATH] is None)
        keys = after[KEYS_PATH]
        if keys is not None and keys != before[KEYS_PATH]:
            kids = {str(key["kid"]) for key in _keys(keys)}
            assert not kids & dropped, f"finding 14: fetch wrote a key set that brings back dropped {kids & dropped}"
        self.check_outcomes(ran, outcomes, in_place, records)
        assert ran.status == FetchModel.exit_status(outcomes), f"exit status {ran.status}: {ran.stderr}"
        for path in (KEYS_PATH, LIST_PATH):
            content = self.model.files[path]
            assert after[path] == (None if content is None else self.world.body(content)), f"{path}: not {content}"
        record = self.model.records.get(LIST_PATH)
        assert recorded_iat(self.out, self.world.urls[LIST_PATH]) == (record.iat if record else None)
        self.check_fresh_verify()

    def check_outcomes(
        self,
        ran: FetchRun,
        outcomes: list[Outcome],
        in_place: dict[str, KeySetBody | ListBody | None],
        records: dict[str, KeySetBody | ListBody],
    ) -> None:
        """What stderr says became of each URL is what the model says, refusals for the model's reason; a
        missed refusal names its finding."""
        findings = {"retired_key": "finding 14: ", "other_issuer": "finding 9: "}
        for outcome in outcomes:
            url = self.world.urls[outcome.path]
            got, expected, line = ran.action(url), expected_action(outcome), ran.line(url)
            if got == "unchanged-304" and in_place[outcome.path] != records.get(outcome.path):
                raise AssertionError(f"finding 11: a 304 kept a file fetch did not write: {line}")
            finding = findings.get(outcome.reason or "", "") if got != "refused" else ""
            if outcome.reason == "rollback" and in_place[outcome.path] is None and got != "refused":
                finding = "finding 10: with the list file removed, "
            assert got == expected, f"{finding}{outcome.path}: model {expected} ({outcome.reason}), fetch: {line}"
            if outcome.reason in REASON_WORDS:
                words = REASON_WORDS[outcome.reason]
                assert any(w in line for w in words), f"refused, not for {outcome.reason} as the model: {line}"

    def file_bytes(self, path: str) -> bytes | None:
        file = the_file(self.folder(path))
        return file.read_bytes() if file is not None else None

    def check_issuer(self, before: bytes | None, after: bytes | None) -> None:
        """Finding 9: once fetch wrote a list for the URL, every list it writes there has that list's issuer."""
        if after is None or after == before:
            return
        header = jws_payload(b"." + after.split(b".")[0] + b".")
        issuer = KEY_ISSUERS[str(header["kid"])]
        if self.bound_issuer is None:
            self.bound_issuer = (issuer,)
        assert self.bound_issuer == (issuer,), f"finding 9: {issuer}'s list replaced {self.bound_issuer[0]}'s"

    def check_floor(self, was_removed: bool) -> None:
        """Finding 10: the greater of the file's iat and the recorded one never decreases over fetch runs."""
        file = self.file_bytes(LIST_PATH)
        found = [iat for iat in (file and list_iat(file), recorded_iat(self.out, self.world.urls[LIST_PATH])) if iat]
        floor = max(found, default=float("-inf"))
        where = "finding 10: after the list file was removed, " if was_removed else ""
        assert floor >= self.floor, f"{where}the floor went down from {self.floor} to {floor}"
        self.floor = floor

    def check_fresh_verify(self) -> None:
        """A verify started afresh never answers valid for a token the newest list fetch ever wrote marks."""
        newest = self.model.newest_written()
        if newest is None or self.file_bytes(KEYS_PATH) is None:
            return
        lines = [line for _, _, line in self.world.tokens]
        status, valid, stderr = verify_fresh(self.world.binary, self.out, lines)
        STATS.lines += len(lines)
        if status == 2:
            keys, in_place = self.model.files[KEYS_PATH], self.model.files[LIST_PATH]
            unsigned = isinstance(in_place, ListBody) and isinstance(keys, tuple) and in_place.signer not in keys
            assert unsigned, f"verify refused to start: {stderr[-2000:]}"
            return
        assert len(valid) == len(lines), f"verify answered {len(valid)} of {len(lines)} lines: {stderr[-2000:]}"
        for kid, idx, _ in self.world.tokens:
            if valid[f"{kid}-{idx}"] is True and newest.marks(idx) and answers_for(newest.issuer, kid):
                raise AssertionError(f"a fresh verify answers {kid}'s token {idx} valid; {newest} marks it")


def _keys(data: bytes) -> list[dict[str, object]]:
    keys: list[dict[str, object]] = json.loads(data)["keys"]
    return keys


@pytest.fixture(scope="session")
def fetch_world(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    world = World(binary, tmp_path_factory.mktemp("fetch"))
    yield world
    world.publisher.close()


def test_fetch_machine(fetch_world: World) -> None:
    FetchMachine.world = fetch_world
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    parent = settings.default
    assert parent is not None
    examples = min(parent.max_examples, EXAMPLES.get(profile, EXAMPLES["ci"]))
    run_state_machine_as_test(FetchMachine, settings=settings(parent, max_examples=examples))


def test_tokens_cover_every_key_and_index(fetch_world: World) -> None:
    """A token of every key and index, and the lists' marks cover some index and leave one: no vacuous check."""
    assert {(kid, idx) for kid, idx, _ in fetch_world.tokens} == {(kid, idx) for kid in KIDS for idx in (1, 2, 3)}
    assert {issuer for issuer in KEY_ISSUERS.values()} >= {ISS_A, None}

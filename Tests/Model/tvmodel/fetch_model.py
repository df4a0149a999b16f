"""A reference model of `fetch`'s rules (spec §7, docs/fetch.md), independent of the implementation: what one
one-shot `fetch --keys KEYS_PATH --status-lists LIST_PATH` must do with each URL (write, keep, refuse and why) given
what the publisher serves, the files in place and what `fetch` recorded in DIR/.fetch-state.json.

Every name is symbolic: a key set is the tuple of its `kid`s, a status list a `ListBody` (signer, iat, entries);
`fetch_world.py` turns them into bytes, and the same content always into the same bytes, so that content equality
is byte equality (the digest `fetch` records) and ETag equality (the publisher's ETag is a hash of the body).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from .model import ISS_A, ISS_B

KEY_ISSUERS: dict[str, str | None] = {"kA": ISS_A, "kC": ISS_A, "kB": ISS_B, "k0": None}
KIDS = tuple(KEY_ISSUERS)
KEYS_PATH = "/jwks"
LIST_PATH = "/sl/1"
MAX_REDIRECTS = 5

KeySetBody = tuple[str, ...]  # the kids, sorted


@dataclass(frozen=True)
class ListBody:
    """A Status List Token for LIST_PATH's URL (its `sub`), signed by kid `signer` with the key's `iss` as its own;
    entries the non-zero (idx, value); every list has the same bits, size and exp, so its entries digest is
    that of `entries`."""

    signer: str
    iat: int
    entries: tuple[tuple[int, int], ...]

    @property
    def issuer(self) -> str | None:
        """§4c: the key's iss, else the list's own (which is the key's here)."""
        return KEY_ISSUERS[self.signer]

    def marks(self, idx: int) -> bool:
        return dict(self.entries).get(idx, 0) != 0


Content = KeySetBody | ListBody


@dataclass(frozen=True)
class Redirect:
    target: str


@dataclass(frozen=True)
class Validators:
    """The validators of a good response: its content stands for its ETag; `path` is the path that gave them
    (None: the URL's own path)."""

    content: Content
    path: str | None


@dataclass
class Record:
    """One URL's entry in the state file."""

    content: Content  # the bytes last written (their SHA-256)
    validators: Validators | None
    iat: int | None = None
    issuer_recorded: bool = False
    issuer: str | None = None
    entries: tuple[tuple[int, int], ...] | None = None
    kids: KeySetBody | None = None
    removed: list[str] = field(default_factory=list)


Action = Literal["wrote", "unchanged", "refused", "failed"]


@dataclass(frozen=True)
class Outcome:
    """What became of one URL: the action, and for a refusal its reason (rollback, other_issuer, retired_key);
    `by_304` when a 304 kept the file."""

    path: str
    action: Action
    reason: str | None = None
    by_304: bool = False


@dataclass
class FetchModel:
    """The publisher's paths, the two files in place and fetch's records, by URL path."""

    served: dict[str, Content | Redirect] = field(default_factory=dict)
    cache_304: bool = False
    files: dict[str, Content | None] = field(default_factory=lambda: {KEYS_PATH: None, LIST_PATH: None})
    records: dict[str, Record] = field(default_factory=dict)
    written: list[ListBody] = field(default_factory=list)  # every list fetch wrote for LIST_PATH
    written_keys: list[KeySetBody] = field(default_factory=list)

    # --- what the publisher answers ------------------------------------------------------------------------------

    def get(self, path: str, validators: Validators | None) -> tuple[int, Content | None, str]:
        """(status, body, the path that answered) for a GET of `path`; validators go only to the path that gave
        them; the publisher answers 304 to a matching one (to any, with cache_304)."""
        current = path
        for _ in range(MAX_REDIRECTS + 1):
            sent = validators if validators is not None and (validators.path or path) == current else None
            body = self.served.get(current)
            if body is None:
                return 404, None, current
            if isinstance(body, Redirect):
                current = body.target
                continue
            if sent is not None and (self.cache_304 or sent.content == body):
                return 304, None, current
            return 200, body, current
        return 310, None, current  # too many redirects: a failure

    # --- one fetch run -------------------------------------------------------------------------------------------

    def fetch(self, readmit: frozenset[str]) -> list[Outcome]:
        """One `fetch` run: the key set URL, then the list URL against the key file then in place."""
        outcomes = [self._round(KEYS_PATH, set(readmit))]
        outcomes.append(self._round(LIST_PATH, set()))
        return outcomes

    @staticmethod
    def exit_status(outcomes: list[Outcome]) -> int:
        return 1 if any(o.action in ("refused", "failed") for o in outcomes) else 0

    def _round(self, path: str, readmit: set[str]) -> Outcome:
        existing = self.files[path]
        record = self.records.get(path)
        validators = record.validators if record is not None and existing == record.content else None
        status, body, answered = self.get(path, validators)
        if status == 304:
            return Outcome(path, "unchanged", by_304=True)
        if status != 200 or body is None:
            return Outcome(path, "failed", f"HTTP {status}")
        given = Validators(body, None if answered == path else answered)
        if path == KEYS_PATH:
            assert isinstance(body, tuple)
            return self._key_set(path, body, existing, record, given, readmit)
        assert isinstance(body, ListBody)
        return self._status_list(path, body, existing, record, given)

    def _key_set(
        self,
        path: str,
        body: KeySetBody,
        existing: Content | None,
        record: Record | None,
        given: Validators,
        readmit: set[str],
    ) -> Outcome:
        """No kid an earlier key set of the URL dropped comes back, unless readmitted."""
        current = record.kids if record is not None and record.kids is not None else None
        if current is None and isinstance(existing, tuple):
            current = existing
        removed = list(record.removed) if record is not None else []
        if any(kid in removed and kid not in readmit for kid in body):
            return Outcome(path, "refused", "retired_key")
        new_removed = [kid for kid in removed if kid not in body]
        new_removed += [kid for kid in current or () if kid not in body and kid not in new_removed]
        action: Action = "unchanged" if body == existing else "wrote"
        entry = record if record is not None else Record(body, given)
        self.records[path] = replace(entry, content=body, validators=given, kids=body, removed=new_removed)
        readmit.difference_update(body)
        if action == "wrote":
            self.files[path] = body
            self.written_keys.append(body)
        return Outcome(path, action)

    def _status_list(
        self, path: str, body: ListBody, existing: Content | None, record: Record | None, given: Validators
    ) -> Outcome:
        """verify's checks against the key file in place, one issuer per URL, the floor."""
        keys = self.files[KEYS_PATH]
        if not isinstance(keys, tuple) or body.signer not in keys:
            return Outcome(path, "failed", "invalid")
        in_place = existing if isinstance(existing, ListBody) and existing.signer in keys else None
        if record is not None and record.issuer_recorded:
            bound: tuple[str | None] | None = (record.issuer,)
        else:
            bound = (in_place.issuer,) if in_place is not None else None
        if bound is not None and bound[0] != body.issuer:
            return Outcome(path, "refused", "other_issuer")
        file_iat = existing.iat if isinstance(existing, ListBody) else None
        recorded_iat = record.iat if record is not None else None
        floors = [iat for iat in (file_iat, recorded_iat) if iat is not None]
        if floors:
            floor = max(floors)
            known: tuple[tuple[int, int], ...] | None = None
            if recorded_iat == floor and record is not None and record.entries is not None:
                known = record.entries
            elif in_place is not None and file_iat == floor:
                known = in_place.entries
            if body.iat < floor or (body.iat == floor and known != body.entries):
                return Outcome(path, "refused", "rollback")
        action: Action = "unchanged" if body == existing else "wrote"
        entry = record if record is not None else Record(body, given)
        self.records[path] = replace(
            entry,
            content=body,
            validators=given,
            iat=body.iat,
            issuer_recorded=True,
            issuer=body.issuer,
            entries=body.entries,
        )
        if action == "wrote":
            self.files[path] = body
            self.written.append(body)
        return Outcome(path, action)

    # --- what a verify started afresh must not answer ------------------------------------------------------------

    def newest_written(self) -> ListBody | None:
        """The newest list fetch ever wrote for the URL (the floor a restarted verify keeps)."""
        return max(self.written, key=lambda sl: sl.iat, default=None)

    def dropped(self) -> set[str]:
        record = self.records.get(KEYS_PATH)
        return set(record.removed) if record is not None else set()

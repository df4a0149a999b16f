"""The trust rules of issue 55 (notes: rules A-E, I) as a reference model, independent of the implementation.

It knows signers (kid keys and certificate chains under tagged anchors), revocations of signers, the status-list
files present, what one running `verify` has loaded (its floors), and answers a token line at a time t with
(valid, reason) in spec §5's order. Every name here is symbolic; `world.py` turns names into real keys and files.

Known-broken switches (env TVMODEL_KNOWN, comma separated) make the model follow TODAY's behaviour for one rule, so
that a run can look past a failure it has already found: "E" (no floors: a removed or rewritten generation is gone),
"7" (a revoked signer still publishes), "8" (lists answer whatever their env), "15" (a list's issuer is its key's
iss only).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

T0 = 1_800_000_000
ISS_A = "https://a.example"
ISS_B = "https://b.example"
URI_1 = "https://a.example/sl/1"
URI_2 = "https://a.example/sl/2"
LEEWAY = 0


def known_broken() -> frozenset[str]:
    """The rules marked known broken for this run (env TVMODEL_KNOWN)."""
    return frozenset(part.strip() for part in os.environ.get("TVMODEL_KNOWN", "").split(",") if part.strip())


@dataclass(frozen=True)
class Key:
    """A kid key of the key set: its extension members."""

    iss: str | None = None
    env: str | None = None


@dataclass(frozen=True)
class Chain:
    """A chain root -> leaf; the root is an anchor file tagged `tag`; the leaf binds `binds` (URIs, https hosts)."""

    name: str
    root: str
    leaf: str
    tag: str | None
    binds: frozenset[str]


@dataclass(frozen=True)
class Revocation:
    """One selector naming a signer: kind is "kid" (target a kid), "x5t#S256" (a certificate) or "spki#S256" (the
    key of a kid or of a certificate)."""

    kind: str
    target: str
    since: int | None = None
    issued_before: int | None = None

    def applies(self, t: float, iat: int | None) -> bool:
        """In force at t (t >= since) for a token or list issued at iat (none: affected)."""
        if self.since is not None and t < self.since:
            return False
        return self.issued_before is None or iat is None or iat < self.issued_before


@dataclass(frozen=True)
class StatusList:
    """A Status List Token: signer is a kid or a chain name; iss its iss claim; entries the non-zero (idx, value)."""

    uri: str
    iat: int
    signer: str
    iss: str | None
    entries: tuple[tuple[int, int], ...]

    @property
    def exp(self) -> int:
        return self.iat + 1200


@dataclass(frozen=True)
class Token:
    """An access token: signer a kid or a chain name, its iss claim, its status index into URI_1, iat and env."""

    signer: str
    iss: str
    idx: int
    iat: int | None
    env: str | None

    @property
    def name(self) -> str:
        return f"{self.signer}/{self.iss[8]}/{self.idx}/{self.iat is not None}/{self.env}"


Group = tuple[str, str | None, str | None]  # (uri, issuer, env)


@dataclass
class Memory:
    """What one running verify remembers: each list content's group when last resolved, and per group the floor
    (greatest iat loaded, and the entry tables seen at it)."""

    groups: dict[StatusList, Group] = field(default_factory=dict)
    floors: dict[Group, tuple[int, frozenset[tuple[tuple[int, int], ...]]]] = field(default_factory=dict)


@dataclass
class Trust:
    """The whole state a verify follows, and what its process remembers."""

    chains: dict[str, Chain]
    keys: dict[str, Key] = field(default_factory=dict)
    anchors: set[str] = field(default_factory=set)
    revocations: list[Revocation] = field(default_factory=list)
    files: dict[str, StatusList] = field(default_factory=dict)
    memory: Memory = field(default_factory=Memory)
    known: frozenset[str] = field(default_factory=known_broken)

    # --- signers -------------------------------------------------------------------------------------------------

    def signer_env(self, signer: str) -> str | None:
        if signer in self.chains:
            return self.chains[signer].tag
        key = self.keys.get(signer)
        return key.env if key else None

    def signer_present(self, signer: str) -> bool:
        """Check 5: the kid is in the key set, or the chain validates to an anchor (validity covers every time
        the test uses)."""
        if signer in self.chains:
            return self.chains[signer].root in self.anchors
        return signer in self.keys

    def signer_revoked(self, signer: str, t: float, iat: int | None) -> bool:
        """A selector naming the key or any certificate of the path, in force at t for something issued at iat."""
        if signer in self.chains:
            chain = self.chains[signer]
            names = {("x5t#S256", chain.root), ("x5t#S256", chain.leaf)}
            names |= {("spki#S256", chain.root), ("spki#S256", chain.leaf)}
        else:
            names = {("kid", signer), ("spki#S256", signer)}
        return any((r.kind, r.target) in names and r.applies(t, iat) for r in self.revocations)

    # --- lists ---------------------------------------------------------------------------------------------------

    def resolve(self, sl: StatusList) -> Group | None:
        """The list's group (B, C) as the state now says, or None when no signer can be found for it."""
        if not self.signer_present(sl.signer):
            return None
        if sl.signer in self.chains:
            return (sl.uri, sl.iss, self.chains[sl.signer].tag)
        key = self.keys[sl.signer]
        issuer = key.iss if key.iss is not None or "15" in self.known else sl.iss
        return (sl.uri, issuer, key.env)

    def list_in_force(self, sl: StatusList, t: float) -> bool:
        """Rule A: the signer is present, its iss agrees with the list's, and no selector revokes it at t."""
        if not self.signer_present(sl.signer):
            return False
        if sl.signer not in self.chains:
            key_iss = self.keys[sl.signer].iss
            if key_iss is not None and sl.iss is not None and key_iss != sl.iss:
                return False
        return "7" in self.known or not self.signer_revoked(sl.signer, t, sl.iat)

    def may_refuse_start(self) -> bool:
        """A start-up may stop (exit 2) when a list file's signer cannot be found, its iss disagrees with the
        list's, or a selector revokes it at some time."""
        return any(
            self.resolve(sl) is None
            or not self.list_in_force(sl, 2**62)
            or not self.list_in_force(sl, -(2**62))
            or self.signer_revoked(sl.signer, 2**62, sl.iat)
            for sl in self.files.values()
        )

    def reload(self) -> None:
        """A reload (SIGHUP) or start-up: every present list is loaded with its group now, or kept with the group
        it was last loaded with; each group's floor takes the greatest iat loaded."""
        for sl in self.files.values():
            group = self.resolve(sl)
            if group is not None:
                self.memory.groups[sl] = group
            group = self.memory.groups.get(sl)
            if group is None:
                continue
            floor = self.memory.floors.get(group)
            if floor is None or sl.iat > floor[0]:
                self.memory.floors[group] = (sl.iat, frozenset({sl.entries}))
            elif sl.iat == floor[0]:
                self.memory.floors[group] = (sl.iat, floor[1] | {sl.entries})

    def restart(self) -> None:
        self.memory = Memory()
        self.reload()

    # --- tokens --------------------------------------------------------------------------------------------------

    def answers_for(self, group: Group, token: Token) -> bool:
        """Rules B and C: the list's issuer is the token's iss (or both name none, for a kid token), and its env
        is the token signer's env or none."""
        uri, issuer, env = group
        if uri != URI_1:
            return False
        token_key = self.keys.get(token.signer)
        if "15" in self.known:
            same = issuer == (token_key.iss if token_key else token.iss)
        else:
            same = issuer == token.iss or (issuer is None and token_key is not None and token_key.iss is None)
        return same and (env is None or env == self.signer_env(token.signer) or "8" in self.known)

    def status(self, token: Token, t: float) -> str | None:
        """Rule D (and E's floors): the reason the status check gives, or None when the entry is 0x00."""
        # iat -> [(entries, in force at t, exp)]
        generations: dict[int, list[tuple[tuple[tuple[int, int], ...], bool, int | None]]] = {}
        for sl in self.files.values():
            group = self.memory.groups.get(sl)
            if group is not None and self.answers_for(group, token):
                generations.setdefault(sl.iat, []).append((sl.entries, self.list_in_force(sl, t), sl.exp))
        if "E" not in self.known:
            for group, (iat, tables) in self.memory.floors.items():
                if self.answers_for(group, token):
                    for entries in tables:
                        generations.setdefault(iat, []).append((entries, False, None))
        issued = [iat for iat in generations if iat - LEEWAY <= t]
        if not issued:
            return "status_unavailable"
        copies = generations[max(issued)]
        if len({entries for entries, _, _ in copies}) > 1:
            return "status_unavailable"
        in_force = [exp for _, live, exp in copies if live]
        if not in_force or any(exp is not None and exp <= t for exp in in_force):
            return "status_unavailable"
        value = dict(copies[0][0]).get(token.idx, 0)
        return {0: None, 2: "status_suspended"}.get(value, "status_invalid")

    def answer(self, token: Token, t: float) -> tuple[bool, str | None]:
        """The answer to a request for `token` at `t`, checks 5 to 10 of spec §5 in order."""
        if not self.signer_present(token.signer):
            return False, "untrusted_chain" if token.signer in self.chains else "unknown_key"
        signer_env = self.signer_env(token.signer)
        if token.env is not None and signer_env is not None and token.env != signer_env:
            return False, "wrong_environment"
        if token.signer in self.chains:
            if token.iss not in self.chains[token.signer].binds:
                return False, "wrong_issuer"
        else:
            key_iss = self.keys[token.signer].iss
            if key_iss is not None and key_iss != token.iss:
                return False, "wrong_issuer"
        if self.signer_revoked(token.signer, t, token.iat):
            return False, "revoked_key"
        reason = self.status(token, t)
        return reason is None, reason

    def newest_in_force_marks(self, token: Token, t: float) -> bool:
        """Independent of floors and ties: the newest list (iat <= t, not expired) that an in-force signer of the
        token's issuer and env published marks the token's index."""
        best: StatusList | None = None
        for sl in self.files.values():
            group = self.resolve(sl)
            if group is None or not self.answers_for(group, token) or not self.list_in_force(sl, t):
                continue
            if sl.iat - LEEWAY <= t < sl.exp and (best is None or sl.iat > best.iat):
                best = sl
        return best is not None and dict(best.entries).get(token.idx, 0) != 0

"""A stateful property test: Hypothesis changes keys, anchors, revocations and status-list files under a running
`verify`, reloads it (SIGHUP) or restarts it, and after every step checks each answer to a fixed set of token lines
against the model (tvmodel.model.Trust)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tvmodel.model import ISS_A, ISS_B, T0, URI_1, URI_2, Key, Memory, Revocation, StatusList, Token, Trust
from tvmodel.pool import CHAINS, KIDS, Pool
from tvmodel.stats import STATS
from tvmodel.world import Files, LiveVerify, one_shot, request_lines

SIGNERS = (*KIDS, *CHAINS)
TOKENS = [
    Token(signer, iss, idx, iat, env)
    for signer in SIGNERS
    for iss in (ISS_A, ISS_B)
    for idx, iat, env in ((1, T0 - 1000, None), (2, None, "int"))
]
TIMES = [T0 - 50, T0 + 50, T0 + 150, T0 + 250, T0 + 450, T0 + 1500]
IATS = [T0, T0 + 100, T0 + 200, T0 + 400]
SLOTS = ["s0", "s1", "s2"]
ISSUERS = st.sampled_from([None, ISS_A, ISS_B])
ENVS = st.sampled_from([None, "int", "prod"])
ENTRIES = st.tuples(st.integers(0, 2), st.integers(0, 2)).map(
    lambda values: tuple((idx, value) for idx, value in zip((1, 2), values, strict=True) if value)
)


def targets(known: frozenset[str]) -> list[tuple[str, str]]:
    """Every (selector kind, target) the revocation file may name."""
    certificates = [name for chain in CHAINS.values() for name in (chain.root, chain.leaf)]
    found = [("kid", kid) for kid in KIDS] + [("x5t#S256", name) for name in certificates]
    if "spki" not in known:
        found += [("spki#S256", name) for name in (*KIDS, *certificates)]
    return found


class TrustMachine(RuleBasedStateMachine):
    binary: str
    pool: Pool
    workspace: Path

    def __init__(self) -> None:
        super().__init__()
        self.trust = Trust(chains=dict(CHAINS))
        STATS.sequences += 1
        self.root = self.workspace / f"seq-{STATS.sequences}"
        self.files = Files(self.pool, self.root)
        self.lines = request_lines(self.pool, TOKENS, TIMES)
        self.published: list[StatusList] = []
        self.live: LiveVerify | None = None

    # --- set-up and the sync after each step ---------------------------------------------------------------------

    @initialize()
    def start(self) -> None:
        self.trust.keys = {"k0": Key(), "k1": Key(ISS_A, "int"), "k2": Key(ISS_A, "prod")}
        self.trust.anchors = {"RI", "RP"}
        self.files.write(self.trust)
        self.live = LiveVerify(self.binary, self.files.verify_args())
        self.trust.restart()

    def sync(self) -> None:
        """Writes the files, reloads the live verify and the model."""
        STATS.steps += 1
        self.files.write(self.trust)
        assert self.live is not None
        note("stderr: " + " | ".join(line for line in self.live.reload() if " reloaded (" not in line))
        self.trust.reload()

    def teardown(self) -> None:
        if self.live is not None:
            self.live.stop()

    def publishable(self, sl: StatusList) -> bool:
        """A list is published only while its signer can be found and agrees with its iss (rules about other
        lists are start-up refusals, outside this machine)."""
        if sl.signer in CHAINS:
            return sl.iss in CHAINS[sl.signer].binds and self.trust.signer_present(sl.signer)
        key = self.trust.keys.get(sl.signer)
        return key is not None and (key.iss is None or sl.iss in (None, key.iss))

    # --- keys, anchors, revocations ------------------------------------------------------------------------------

    @rule(kid=st.sampled_from(KIDS), present=st.booleans(), iss=ISSUERS, env=ENVS)
    def set_key(self, kid: str, present: bool, iss: str | None, env: str | None) -> None:
        """Adds a key, removes it, or changes its iss or env (a rotation of the key file)."""
        if present:
            self.trust.keys[kid] = Key(iss, env)
        else:
            self.trust.keys.pop(kid, None)
        self.sync()

    @rule(root=st.sampled_from([chain.root for chain in CHAINS.values()]), present=st.booleans())
    def set_anchor(self, root: str, present: bool) -> None:
        (self.trust.anchors.add if present else self.trust.anchors.discard)(root)
        self.sync()

    @rule(data=st.data())
    def revoke(self, data: st.DataObject) -> None:
        kind, target = data.draw(st.sampled_from(targets(self.trust.known)))
        since = data.draw(st.sampled_from([None, T0 + 150]))
        issued_before = data.draw(st.sampled_from([None, T0 + 150, T0 - 2000]))
        self.trust.revocations.append(Revocation(kind, target, since, issued_before))
        self.sync()

    @precondition(lambda self: bool(self.trust.revocations))
    @rule(data=st.data())
    def unrevoke(self, data: st.DataObject) -> None:
        self.trust.revocations.pop(data.draw(st.integers(0, len(self.trust.revocations) - 1)))
        self.sync()

    # --- status-list files ---------------------------------------------------------------------------------------

    def put(self, slot: str, sl: StatusList) -> None:
        assume(self.publishable(sl))
        self.trust.files[slot] = sl
        self.published.append(sl)
        self.sync()

    @rule(
        slot=st.sampled_from(SLOTS),
        uri=st.sampled_from([URI_1, URI_1, URI_2]),
        iat=st.sampled_from(IATS),
        signer=st.sampled_from(SIGNERS),
        iss=ISSUERS,
        entries=ENTRIES,
    )
    def publish(self, slot: str, uri: str, iat: int, signer: str, iss: str | None, entries: Any) -> None:
        self.put(slot, StatusList(uri, iat, signer, iss, entries))

    @precondition(lambda self: bool(self.trust.files))
    @rule(data=st.data())
    def rewrite(self, data: st.DataObject) -> None:
        """A file rewritten with an older iat, the same iat and other entries, or another URI."""
        slot = data.draw(st.sampled_from(sorted(self.trust.files)))
        old = self.trust.files[slot]
        how = data.draw(st.sampled_from(["older", "same-iat", "other-uri"]))
        if how == "older":
            new = replace(old, iat=data.draw(st.sampled_from([iat for iat in IATS if iat < old.iat] or [old.iat])))
        elif how == "same-iat":
            new = replace(old, entries=data.draw(ENTRIES))
        else:
            new = replace(old, uri=URI_2 if old.uri == URI_1 else URI_1)
        self.put(slot, new)

    @precondition(lambda self: bool(self.published))
    @rule(slot=st.sampled_from(SLOTS), data=st.data())
    def replay(self, slot: str, data: st.DataObject) -> None:
        """An earlier list written again (a replayed or restored file)."""
        self.put(slot, data.draw(st.sampled_from(self.published)))

    @precondition(lambda self: bool(self.trust.files))
    @rule(data=st.data())
    def remove(self, data: st.DataObject) -> None:
        del self.trust.files[data.draw(st.sampled_from(sorted(self.trust.files)))]
        self.sync()

    @precondition(lambda self: bool(self.trust.files))
    @rule(data=st.data())
    def touch(self, data: st.DataObject) -> None:
        self.files.touch(data.draw(st.sampled_from(sorted(self.trust.files))))
        self.sync()

    # --- processes -----------------------------------------------------------------------------------------------

    @rule()
    def restart(self) -> None:
        """A new verify on the same files; where the model allows a start-up refusal (exit 2) and it comes, the old
        process goes on."""
        STATS.steps += 1
        fresh = LiveVerify(self.binary, self.files.verify_args())
        try:
            fresh.ask(self.lines[:1])
        except RuntimeError:
            status = fresh.stop()
            assert status == 2 and self.trust.may_refuse_start(), f"verify did not start ({status}): {fresh.stderr}"
            return
        assert self.live is not None
        self.live.stop()
        self.live = fresh
        self.trust.restart()

    @rule(seed=st.integers(0, 2**32 - 1))
    def one_shot_orders(self, seed: int) -> None:
        """The same lines in two shuffled orders, with 1 and 2 threads and with the cache off, give the same
        answers, one per line, and those of a fresh process of the model."""
        STATS.steps += 1
        shuffled = [list(self.lines), list(self.lines)]
        for copy in shuffled:
            random.Random(seed).shuffle(copy)
            seed += 1
        args = self.files.verify_args()
        runs = [
            one_shot(self.binary, [*args, "--threads", "1"], shuffled[0]),
            one_shot(self.binary, [*args, "--threads", "2"], shuffled[1]),
            one_shot(self.binary, [*args, "--cache-slots", "0"], self.lines),
        ]
        statuses = {status for status, _, _ in runs}
        if statuses == {2}:
            assert self.trust.may_refuse_start(), f"verify refused to start: {runs[0][2]}"
            return
        assert statuses == {0}, f"exit statuses {statuses}: {[stderr[:3000] for _, _, stderr in runs]}"
        fresh = Trust(chains=self.trust.chains, keys=dict(self.trust.keys), anchors=set(self.trust.anchors))
        fresh.revocations, fresh.files, fresh.memory = list(self.trust.revocations), dict(self.trust.files), Memory()
        fresh.reload()
        verdicts = []
        for _, answers, _ in runs:
            assert len(answers) == len(self.lines), "every line answered"
            verdicts.append({str(a["id"]): (a["valid"], a.get("reason")) for a in answers})
        assert verdicts[0] == verdicts[1] == verdicts[2], "answers depend on line order, threads or cache"
        self.compare(fresh, verdicts[0], "fresh process")

    # --- the checks after every step -----------------------------------------------------------------------------

    def compare(self, trust: Trust, verdicts: dict[str, tuple[object, object]], where: str) -> None:
        STATS.lines += len(verdicts)
        for token in TOKENS:
            for t in TIMES:
                got = verdicts[f"{token.name}@{t}"]
                if got[0] is True and trust.newest_in_force_marks(token, t):
                    raise AssertionError(f"{where}: {token.name} at {t} valid, but the newest in-force list marks it")
                expected = trust.answer(token, t)
                assert got == expected, f"{where}: {token.name} at t={t}: model {expected}, verify {got}"

    @invariant()
    def answers_follow_the_model(self) -> None:
        if self.live is None:
            return
        answers = self.live.ask(self.lines)
        for answer in answers:
            if answer["valid"] is True and str(answer["id"]).startswith("c") and "6" not in self.trust.known:
                assert "kid" not in answer and "x5t#S256" in answer, f"rule I: a chain token's answer {answer}"
        self.compare(self.trust, {str(a["id"]): (a["valid"], a.get("reason")) for a in answers}, "live verify")


def test_trust_machine(binary: str, pool: Pool, tmp_path: Path) -> None:
    TrustMachine.binary, TrustMachine.pool, TrustMachine.workspace = binary, pool, tmp_path
    run_state_machine_as_test(TrustMachine)


def test_tokens_cover_every_signer_and_issuer() -> None:
    """The fixed token set has a token of each signer, issuer and status index: a check cannot pass vacuously."""
    assert {(t.signer, t.iss, t.idx) for t in TOKENS} == {
        (s, i, x) for s in SIGNERS for i in (ISS_A, ISS_B) for x in (1, 2)
    }
    assert pytest.approx(len(TOKENS) * len(TIMES)) == 120


@settings(max_examples=1, database=None, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.just(None))
def test_a_list_whose_key_moved_issuer_holds_that_issuers_floor(
    binary: str, pool: Pool, tmp_path: Path, _: None
) -> None:
    """The machine's find, replayed: a list signed by k0 for issuer A, then k0 rebound to issuer B. The list is now
    of B's group (a list's issuer is its key's `iss`), out of force, and still that group's floor, so a list with the
    same `iat` and other entries published after it is a conflict: B's tokens are `status_unavailable` (spec §4c).
    (The verifier kept the list in A's group only, and answered B's tokens from the second list.)"""
    TrustMachine.binary, TrustMachine.pool, TrustMachine.workspace = binary, pool, tmp_path
    state = TrustMachine()
    try:
        state.start()
        state.answers_follow_the_model()
        state.publish(entries=(), iat=T0, iss=ISS_A, signer="k0", slot="s0", uri=URI_1)
        state.answers_follow_the_model()
        state.set_key(env=None, iss=ISS_B, kid="k0", present=True)
        state.answers_follow_the_model()
        state.publish(entries=((2, 2),), iat=T0, iss=None, signer="k0", slot="s0", uri=URI_1)
        state.answers_follow_the_model()
    finally:
        state.teardown()

"""Extreme numbers (rule G): `at`, `exp`, `nbf` and `iat` far outside 0001-9999 are answered, one answer a line,
and the process ends with status 0 or 1, never by a signal."""

from __future__ import annotations

import json
from pathlib import Path

from tvmodel.model import ISS_A
from tvmodel.pool import Pool, run
from tvmodel.world import one_shot

EXTREMES = [1e19, -1e19, 1.7976931348623157e308, -1.7976931348623157e308, 253402300800, -62135596801, 2**63, -(2**63)]


def test_extreme_numbers_are_answered(binary: str, pool: Pool, tmp_path: Path) -> None:
    keys = tmp_path / "keys.jwks"
    keys.write_text(json.dumps({"keys": [pool.public["k0"]]}))
    base = {"iss": "i", "sub": "d", "aud": "o", "jti": "j", "exp": 4102444800, "ch": ["ble"], "cmd": ["unlock"]}
    claims = [json.dumps(base)]
    for value in EXTREMES:
        for member in ("exp", "nbf", "iat"):
            claims.append(json.dumps({**base, member: value}))
    text = "\n".join(claims) + "\n"
    # --allow-malformed: these claims are the malformed tokens under test, which sign refuses by default.
    signed = run(binary, ["sign", "--allow-malformed", "--key", pool.private("k0")], text).split()
    chained = run(
        binary, ["sign", "--allow-malformed", *pool.signing_args("ci")], text.replace('"iss": "i"', f'"iss": "{ISS_A}"')
    ).split()
    assert len(signed) == len(chained) == len(claims), "every claim set signed"
    tokens = [*signed[1:], *chained[1:]]
    requests = [json.dumps({"token": token, "at": value}) for token in (signed[0], chained[0]) for value in EXTREMES]
    requests += [f'{{"token": "{chained[0]}", "at": {text}}}' for text in ("1e19", "-1e19", "1e400")]
    anchors = f"int={pool.pem('RI')}"
    args = ["--keys", str(keys), "--trust-anchors", anchors, "--skip-status-lists"]
    status, answers, stderr = one_shot(binary, args, tokens + requests)
    assert status in (0, 1), f"verify ended with {status} (a signal is negative): {stderr[-2000:]}"
    assert len(answers) == len(tokens) + len(requests), f"{len(answers)} answers: {stderr[-2000:]}"
    reasons = [answer.get("reason") for answer in answers]
    assert reasons == ["malformed_token"] * len(tokens) + ["malformed_request"] * len(requests), "rule G"

"""The real side of the fetch model: keys, key sets, status lists and tokens made with the binary (cached, so that
one symbolic content is always the same bytes), a `fetch` run and a fresh `verify` against its folders, and what
lies in DIR afterwards (the two files, the state file)."""

from __future__ import annotations

import base64
import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .fetch_model import KEY_ISSUERS, KEYS_PATH, KIDS, LIST_PATH, KeySetBody, ListBody, Outcome
from .model import ISS_A
from .pool import run

NOW = int(time.time())
BASE_IAT = NOW - 100_000  # every list is issued in the past ...
LIST_EXP = NOW + 10 * 86_400  # ... and expires well after the session
IATS = [BASE_IAT + 100 * step for step in range(6)]
TOKEN_IDXS = (1, 2, 3)  # lists mark 1 and 2; 3 is never marked


def jws_payload(data: bytes) -> dict[str, object]:
    part = data.split(b".")[1]
    payload: dict[str, object] = json.loads(base64.urlsafe_b64decode(part + b"=" * (-len(part) % 4)))
    return payload


class Material:
    """The session's keys (kids kA, kC with iss A, kB with iss B, k0 with none) in `root`, and what they sign."""

    def __init__(self, binary: str, root: Path) -> None:
        self.binary = binary
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.public: dict[str, dict[str, str]] = {}
        for kid, iss in KEY_ISSUERS.items():
            args = ["keygen", "--alg", "Ed25519", "--kid", kid, "--out", str(root / kid)]
            run(binary, args + (["--iss", iss] if iss else []))
            self.public[kid] = json.loads((root / f"{kid}.jwks").read_text())["keys"][0]
        self._lists: dict[tuple[ListBody, str], bytes] = {}

    def key_set(self, body: KeySetBody) -> bytes:
        return json.dumps({"keys": [self.public[kid] for kid in body]}).encode()

    def status_list(self, body: ListBody, uri: str) -> bytes:
        """The signed list for `uri`: 2 bits an entry, 8 entries, exp LIST_EXP, iss its key's."""
        if (body, uri) not in self._lists:
            entries = "".join(json.dumps({"idx": idx, "status": value}) + "\n" for idx, value in body.entries)
            args = ["status-list", "--key", str(self.root / f"{body.signer}.private.jwk"), "--uri", uri]
            args += ["--bits", "2", "--size", "8", "--iat", str(body.iat), "--exp", str(LIST_EXP)]
            iss = KEY_ISSUERS[body.signer]
            args += ["--iss", iss] if iss else []
            self._lists[(body, uri)] = run(self.binary, args, entries).strip().encode()
        return self._lists[(body, uri)]

    def token_lines(self, uri: str) -> list[tuple[str, int, str]]:
        """(signer, idx, request line) for a token of each key and index naming `uri`, checked now; a token's iss
        is its key's (A for k0, which names none)."""
        claims = []
        names = []
        for kid in KIDS:
            for idx in TOKEN_IDXS:
                claims.append(
                    {
                        "iss": KEY_ISSUERS[kid] or ISS_A,
                        "sub": "phone-1",
                        "aud": "car-1",
                        "jti": f"{kid}-{idx}",
                        "exp": LIST_EXP,
                        "ch": ["ble"],
                        "cmd": ["unlock"],
                        "status": {"status_list": {"idx": idx, "uri": uri}},
                    }
                )
                names.append((kid, idx))
        lines: list[tuple[str, int, str]] = []
        for kid in KIDS:
            text = "".join(json.dumps(c) + "\n" for c, (k, _) in zip(claims, names, strict=True) if k == kid)
            tokens = run(self.binary, ["sign", "--key", str(self.root / f"{kid}.private.jwk")], text).split()
            for token, idx in zip(tokens, TOKEN_IDXS, strict=True):
                lines.append((kid, idx, json.dumps({"id": f"{kid}-{idx}", "token": token})))
        return lines


@dataclass
class FetchRun:
    status: int
    stderr: str

    def line(self, url: str) -> str:
        """The run's stderr line about `url` ("" when none)."""
        for text in self.stderr.splitlines():
            line = text.removeprefix("tokenverify: ")
            if line.startswith((f"{url}: ", f"{url} ")):
                return line
        return ""

    def action(self, url: str) -> str:
        """What stderr says became of `url`: wrote, unchanged, unchanged-304, refused, failed, or none."""
        line = self.line(url).removeprefix(url)
        for prefix, action in (
            (": wrote", "wrote"),
            (": unchanged (304", "unchanged-304"),
            (": unchanged", "unchanged"),
            (" refused:", "refused"),
            (" failed:", "failed"),
        ):
            if line.startswith(prefix):
                return action
        return "none"


def expected_action(outcome: Outcome) -> str:
    return "unchanged-304" if outcome.by_304 else outcome.action


# The words of each refusal reason on stderr (the fixed build's).
REASON_WORDS = {
    "rollback": ("a stale or replayed copy", "and other entries"),
    "other_issuer": ("another issuer's list is never written",),
    "retired_key": ("brings back",),
}


def run_fetch(binary: str, out: Path, urls: dict[str, str], ca_file: Path, readmit: frozenset[str]) -> FetchRun:
    args = [binary, "fetch", "--out", str(out), "--keys", urls[KEYS_PATH], "--status-lists", urls[LIST_PATH]]
    args += ["--ca-file", str(ca_file)]
    for kid in sorted(readmit):
        args += ["--readmit-kid", kid]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    return FetchRun(done.returncode, done.stderr)


def supports_readmit(binary: str) -> bool:
    done = subprocess.run([binary, "fetch", "--help"], capture_output=True, text=True, timeout=60, check=False)
    return "--readmit-kid" in done.stdout + done.stderr


def the_file(folder: Path) -> Path | None:
    """The one file fetch keeps in a folder (dotfiles are temporaries), or None."""
    files = [path for path in folder.glob("*") if not path.name.startswith(".")] if folder.is_dir() else []
    assert len(files) <= 1, f"more than one file in {folder}: {files}"
    return files[0] if files else None


def recorded_iat(out: Path, url: str) -> float | None:
    """The iat DIR/.fetch-state.json records for `url` (None: no state, no entry, or none recorded)."""
    path = out / ".fetch-state.json"
    if not path.exists():
        return None
    entry = json.loads(path.read_text()).get("entries", {}).get(url, {})
    value = entry.get("issuedAt")
    return float(value) if value is not None else None


def list_iat(data: bytes) -> float:
    value = jws_payload(data)["iat"]
    assert isinstance(value, int | float)
    return float(value)


def verify_fresh(binary: str, out: Path, lines: list[str]) -> tuple[int, dict[str, object], str]:
    """A one-shot `verify --keys DIR/keys --status-lists DIR/status-lists`: its status, valid by id, stderr."""
    args = [binary, "verify", "--keys", str(out / "keys"), "--status-lists", str(out / "status-lists"), "--quiet"]
    done = subprocess.run(
        args, input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=120, check=False
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, {str(a["id"]): a.get("valid") for a in answers}, done.stderr

"""Real keys, certificates, tokens and status lists, made once per session with the binary and cached on disk.

Names match the model's: kid keys k0..k2, chains "ci" (root RI tagged int, leaf LI naming ISS_A) and "cp" (root RP
tagged prod, leaf LP naming ISS_A by URI and b.example by dNSName). Every key is Ed25519.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from pathlib import Path

from .model import ISS_A, T0, URI_1, Chain, StatusList, Token

KIDS = ("k0", "k1", "k2")
CHAINS = {
    "ci": Chain("ci", "RI", "LI", "int", frozenset({ISS_A})),
    "cp": Chain("cp", "RP", "LP", "prod", frozenset({ISS_A, "https://b.example"})),
}
NOT_BEFORE = 1_700_000_000
NOT_AFTER = 1_900_000_000
SPKI_ED25519 = bytes.fromhex("302a300506032b6570032100")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def run(binary: str, args: list[str], stdin: str = "") -> str:
    """Runs one tool command; a failure raises with its stderr."""
    done = subprocess.run([binary, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"tokenverify {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


class Pool:
    """The session's key material in `root`; `list_bytes` and `token` make and cache what examples use."""

    def __init__(self, binary: str, root: Path) -> None:
        self.binary = binary
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.public: dict[str, dict[str, str]] = {}  # kid -> public JWK (without env/iss)
        self.thumbprints: dict[tuple[str, str], str] = {}  # (kind, target) -> selector value
        self._lists: dict[StatusList, bytes] = {}
        self._tokens: dict[Token, str] = {}
        for name in (*KIDS, "RI", "LI", "RP", "LP"):
            self._keygen(name)
        for chain in CHAINS.values():
            self._chain(chain)

    def _keygen(self, name: str) -> None:
        run(self.binary, ["keygen", "--alg", "Ed25519", "--kid", name, "--out", str(self.root / name)])
        jwk = json.loads((self.root / f"{name}.jwks").read_text())["keys"][0]
        self.public[name] = jwk
        self.thumbprints[("spki#S256", name)] = b64url(hashlib.sha256(SPKI_ED25519 + b64url_decode(jwk["x"])).digest())
        self.thumbprints[("kid", name)] = name

    def _certificate(self, name: str, args: list[str]) -> None:
        times = ["--not-before", str(NOT_BEFORE), "--not-after", str(NOT_AFTER)]
        run(self.binary, ["certificate", *args, "--subject", f"CN={name}", *times, "--out", self.pem(name)])
        body = "".join(line for line in Path(self.pem(name)).read_text().splitlines() if "-----" not in line)
        self.thumbprints[("x5t#S256", name)] = b64url(hashlib.sha256(base64.b64decode(body)).digest())

    def _chain(self, chain: Chain) -> None:
        self._certificate(chain.root, ["--ca", "--key", self.private(chain.root)])
        names: list[str] = []
        for bind in sorted(chain.binds):
            names += ["--uri", bind] if bind == ISS_A else ["--dns", bind.removeprefix("https://")]
        issuer = ["--issuer-cert", self.pem(chain.root), "--issuer-key", self.private(chain.root)]
        self._certificate(chain.leaf, ["--key", str(self.root / f"{chain.leaf}.jwks"), *names, *issuer])

    def private(self, name: str) -> str:
        return str(self.root / f"{name}.private.jwk")

    def pem(self, name: str) -> str:
        return str(self.root / f"{name}.pem")

    def signing_args(self, signer: str) -> list[str]:
        """A kid key signs with its private JWK; a chain with its leaf's, carrying the leaf (root left out)."""
        if signer in CHAINS:
            leaf = CHAINS[signer].leaf
            return ["--key", self.private(leaf), "--chain", self.pem(leaf)]
        return ["--key", self.private(signer)]

    def list_bytes(self, sl: StatusList) -> bytes:
        """The signed list, 2 bits an entry, 8 entries, exp = iat + 1200."""
        if sl not in self._lists:
            entries = "".join(json.dumps({"idx": idx, "status": value}) + "\n" for idx, value in sl.entries)
            args = ["status-list", *self.signing_args(sl.signer), "--uri", sl.uri, "--bits", "2", "--size", "8"]
            args += ["--iat", str(sl.iat), "--exp", str(sl.exp)]
            args += ["--iss", sl.iss] if sl.iss is not None else []
            self._lists[sl] = run(self.binary, args, entries).encode()
        return self._lists[sl]

    def token(self, token: Token) -> str:
        if token not in self._tokens:
            claims: dict[str, object] = {
                "iss": token.iss,
                "sub": "phone-1",
                "aud": "car-1",
                "jti": token.name,
                "exp": T0 + 10**6,
                "ch": ["ble"],
                "cmd": ["unlock"],
                "status": {"status_list": {"idx": token.idx, "uri": URI_1}},
            }
            if token.iat is not None:
                claims["iat"] = token.iat
            if token.env is not None:
                claims["env"] = token.env
            self._tokens[token] = run(self.binary, ["sign", *self.signing_args(token.signer)], json.dumps(claims))
            self._tokens[token] = self._tokens[token].strip()
        return self._tokens[token]

"""Chained tokens minted by independent libraries (JWS by joserfc, CWT by pycose), with the verdict
tokenverify must give each, for ChainInteropTests. See chain_mint.py for the chains.

Usage: python chain_tokens.py OUT
Writes OUT/anchors.pem, OUT/tokens.txt, OUT/expected.json ([[name, reason or null], ...]) and
OUT/at.txt (the check time).
"""

from __future__ import annotations

import argparse
import base64
import datetime
import json
import warnings
from pathlib import Path
from typing import Any

import cbor2
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey
from pycose.algorithms import EdDSA, Es256
from pycose.headers import Algorithm, X5chain
from pycose.keys.curves import P256, Ed25519
from pycose.keys.ec2 import EC2Key
from pycose.keys.okp import OKPKey as CoseOKPKey
from pycose.messages.sign1message import Sign1Message

from chain_mint import DAY, Chain, PrivateKey, new_key, openssl_chain, python_chain

warnings.simplefilter("ignore")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def ders(chain: Chain) -> list[bytes]:
    return [certificate.public_bytes(serialization.Encoding.DER) for certificate in chain.certificates]


def claims(iss: str, now: int) -> dict[str, Any]:
    return {
        "iss": iss,
        "sub": "phone-1",
        "aud": "car-1",
        "jti": "t-1",
        "iat": now,
        "exp": now + 7 * 86400,
        "ch": ["ble"],
        "cmd": ["unlock"],
    }


def jws(chain: Chain, iss: str, now: int, key: PrivateKey | None = None) -> str:
    """A JWS by joserfc with the chain in `x5c`, signed with `key` (the leaf's by default)."""
    signer = key or chain.leaf_key
    pem = signer.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    alg = "EdDSA" if isinstance(signer, ed25519.Ed25519PrivateKey) else "ES256"
    jwk = OKPKey.import_key(pem) if alg == "EdDSA" else ECKey.import_key(pem)
    x5c = [base64.b64encode(der).decode() for der in ders(chain)]
    return jwt.encode({"alg": alg, "typ": "JWT", "x5c": x5c}, claims(iss, now), jwk, algorithms=[alg])


def cwt(chain: Chain, iss: str, now: int, key: PrivateKey | None = None) -> str:
    """A CWT (COSE_Sign1) by pycose with the chain in protected header 33 `x5chain`."""
    signer = key or chain.leaf_key
    c = claims(iss, now)
    payload = {
        1: c["iss"],
        2: c["sub"],
        3: c["aud"],
        4: c["exp"],
        6: c["iat"],
        7: b"t-1",
        "ch": c["ch"],
        "cmd": c["cmd"],
    }
    cose_key: EC2Key | CoseOKPKey
    if isinstance(signer, ed25519.Ed25519PrivateKey):
        raw = serialization.Encoding.Raw
        cose_key = CoseOKPKey(
            crv=Ed25519,
            x=signer.public_key().public_bytes(raw, serialization.PublicFormat.Raw),
            d=signer.private_bytes(raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()),
        )
        alg: Any = EdDSA
    else:
        assert isinstance(signer, ec.EllipticCurvePrivateKey)
        numbers = signer.private_numbers()
        cose_key = EC2Key(
            crv=P256,
            x=numbers.public_numbers.x.to_bytes(32, "big"),
            y=numbers.public_numbers.y.to_bytes(32, "big"),
            d=numbers.private_value.to_bytes(32, "big"),
        )
        alg = Es256
    message = Sign1Message(phdr={Algorithm: alg, X5chain: ders(chain)}, payload=cbor2.dumps(payload))
    message.key = cose_key
    return b64url(message.encode())


def tampered(token: str, form: str) -> str:
    """The token with its payload changed after signing (sub becomes another phone)."""
    if form == "jws":
        header, payload, signature = token.split(".")
        body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        body["sub"] = "phone-2"
        return ".".join([header, b64url(json.dumps(body).encode()), signature])
    message = cbor2.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    body = cbor2.loads(message.value[2])
    body[2] = "phone-2"
    message.value[2] = cbor2.dumps(body)
    return b64url(cbor2.dumps(message))


def cases(work: Path, now: datetime.datetime) -> tuple[list[Chain], list[tuple[str, str, str | None]]]:
    """The trusted chains and (name, token, expected reason) for each line."""
    t = int(now.timestamp())
    good = [
        python_chain("RSA", "P-384", "P-256", now),
        python_chain("P-384", "RSA", "Ed25519", now),
        python_chain("P-256", "Ed25519", "P-256", now),
        python_chain("Ed25519", "P-256", "Ed25519", now),
        openssl_chain(work, "RSA", "Ed25519", "P-256"),
        openssl_chain(work, "Ed25519", "P-384", "Ed25519"),
        openssl_chain(work, "P-256", "RSA", "Ed25519"),
        openssl_chain(work, "P-384", "P-256", "P-256"),
    ]
    expired = python_chain("P-256", "P-256", "P-256", now, (now - 400 * DAY, now - 35 * DAY))
    rsa_leaf = python_chain("P-256", "P-256", "RSA", now)
    stranger = python_chain("P-256", "P-256", "P-256", now)  # its root is not an anchor
    lines: list[tuple[str, str, str | None]] = []
    for chain in good:
        host_iss = "https://" + chain.issuer.split("/")[2]  # an https iss whose host is a dNSName
        lines += [
            (chain.name + " jws", jws(chain, chain.issuer, t), None),
            (chain.name + " cwt", cwt(chain, host_iss, t), None),
        ]
    ed_leaf = next(chain for chain in good if isinstance(chain.leaf_key, ed25519.Ed25519PrivateKey))
    p256 = new_key("P-256")
    for form, mint in (("jws", jws), ("cwt", cwt)):
        lines += [
            (f"expired leaf {form}", mint(expired, expired.issuer, t), "untrusted_chain"),
            (f"wrong root {form}", mint(stranger, stranger.issuer, t), "untrusted_chain"),
            (f"RSA leaf {form}", mint(rsa_leaf, rsa_leaf.issuer, t, p256), "untrusted_chain"),
            (f"iss not a leaf name {form}", mint(good[0], "https://elsewhere.example/op", t), "wrong_issuer"),
            (f"ES256 with an Ed25519 leaf {form}", mint(ed_leaf, ed_leaf.issuer, t, p256), "key_alg_mismatch"),
            (f"tampered payload {form}", tampered(mint(good[1], good[1].issuer, t), form), "bad_signature"),
        ]
    return good + [expired, rsa_leaf], lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    out: Path = parser.parse_args().out
    # A second past the last whole second: OpenSSL's certificates start now (`-days`).
    now = datetime.datetime.fromtimestamp(
        int(datetime.datetime.now(datetime.timezone.utc).timestamp()) + 1, datetime.timezone.utc
    )
    trusted, lines = cases(out, now)
    (out / "anchors.pem").write_bytes(
        b"".join(chain.root.public_bytes(serialization.Encoding.PEM) for chain in trusted)
    )
    (out / "tokens.txt").write_text("".join(token + "\n" for _, token, _ in lines))
    (out / "expected.json").write_text(json.dumps([[name, reason] for name, _, reason in lines]))
    (out / "at.txt").write_text(str(int(now.timestamp()) + 3600))


if __name__ == "__main__":
    main()

"""Takes the chains out of tokens made by `tokenverify sign --chain` and checks the tokens with
libraries other than tokenverify, for ChainInteropTests.

For each token (one a line of TOKENS, JWS or CWT) it writes OUT/N-leaf.pem and
OUT/N-untrusted.pem (the leaf and the rest of the chain from `x5c` or `x5chain`, for
`openssl verify`) and prints one line: "ok FORMAT SUBJECT" when the signature verifies with the
leaf's key (JWS by joserfc, CWT by python-cwt's COSE layer), else "refused FORMAT ERROR".

Usage: python chain_check.py TOKENS OUT
"""

from __future__ import annotations

import argparse
import base64
import json
import warnings
from pathlib import Path

import cbor2
import cwt
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey
from joserfc.jws import JWSRegistry

warnings.simplefilter("ignore")


def unpad(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def chain_of(token: str) -> tuple[str, list[bytes]]:
    """The token's format and its chain's DER certificates, leaf first."""
    if "." in token:
        header = json.loads(unpad(token.split(".")[0]))
        return "jws", [base64.b64decode(item, validate=True) for item in header["x5c"]]
    protected = cbor2.loads(cbor2.loads(unpad(token)).value[0])
    chain = protected[33]
    return "cwt", chain if isinstance(chain, list) else [chain]


def public_pem(certificate: x509.Certificate) -> bytes:
    return certificate.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def verify(form: str, token: str, leaf: x509.Certificate) -> None:
    """Raises when the token's signature does not verify with the leaf's key."""
    pem = public_pem(leaf)
    if form == "jws":
        alg = json.loads(unpad(token.split(".")[0]))["alg"]
        key = ECKey.import_key(pem) if alg == "ES256" else OKPKey.import_key(pem)
        registry = JWSRegistry(algorithms=[alg])
        registry.max_header_length = 8192  # joserfc's default, 512 bytes, is less than a chain
        jwt.decode(token, key, registry=registry)
        return
    alg = "EdDSA" if isinstance(leaf.public_key(), ed25519.Ed25519PublicKey) else "ES256"
    cwt.COSE.new().decode(unpad(token), cwt.COSEKey.from_pem(pem, alg=alg))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tokens", type=Path)
    parser.add_argument("out", type=Path)
    arguments = parser.parse_args()
    for number, token in enumerate(arguments.tokens.read_text().split(), start=1):
        form, ders = chain_of(token)
        certificates = [x509.load_der_x509_certificate(der) for der in ders]
        pems = [certificate.public_bytes(serialization.Encoding.PEM) for certificate in certificates]
        (arguments.out / f"{number}-leaf.pem").write_bytes(pems[0])
        (arguments.out / f"{number}-untrusted.pem").write_bytes(b"".join(pems[1:]))
        try:
            verify(form, token, certificates[0])
            print("ok", form, certificates[0].subject.rfc4514_string())
        except Exception as error:  # noqa: BLE001 - the verdict is the output
            print("refused", form, type(error).__name__)


if __name__ == "__main__":
    main()

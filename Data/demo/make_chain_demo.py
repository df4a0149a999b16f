#!/usr/bin/env python3
"""Mints the demo's chained tokens (spec §3b) with Python's `cryptography` package.

A demo operator root (P-256), an intermediate CA (P-256) and a signing certificate (Ed25519) whose
subjectAltName names `keys.demo-operator.example`; `anchors.pem` holds the root for
`verify --trust-anchors`. `chain-requests.jsonl` holds tokens that carry the leaf and the
intermediate in their header (JWS `x5c`, CWT `x5chain`) and no `kid`, and `chain-expected.jsonl`
their verdicts. DEMO KEYS, derived from fixed labels: never use them for anything real. Rerun with
`python3 Data/demo/make_chain_demo.py` (signatures of the P-256 certificates change; verdicts do not).
"""
import base64
import datetime
import hashlib
import json
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.x509.oid import NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
FAR = 4102444800  # 2100-01-01
ISSUER = "https://keys.demo-operator.example"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def seed(label: str) -> bytes:
    return hashlib.sha256(("tokenverify demo key " + label).encode()).digest()


def p256(label: str) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(seed(label), "big") % (2**256 - 2**224 - 1) + 1, ec.SECP256R1())


def certificate(subject: str, key, issuer_name: str, issuer_key, serial: int, *, ca: bool,
                not_before: datetime.datetime, not_after: datetime.datetime, dns: list[str] = ()) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    builder = (x509.CertificateBuilder().subject_name(name)
               .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
               .public_key(key.public_key()).serial_number(serial)
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca and subject != issuer_name else None),
                              critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, key_cert_sign=ca,
                                            crl_sign=ca, encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                              critical=False))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def der_b64(cert: x509.Certificate) -> str:
    return base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()


def cbor(item) -> bytes:
    def head(major: int, n: int) -> bytes:
        if n < 24:
            return bytes([major << 5 | n])
        for info, width in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 1 << (8 * width):
                return bytes([major << 5 | info]) + n.to_bytes(width, "big")
        raise ValueError(n)
    if isinstance(item, tuple):
        return head(6, item[0]) + cbor(item[1])
    if isinstance(item, int):
        return head(0, item) if item >= 0 else head(1, -1 - item)
    if isinstance(item, bytes):
        return head(2, len(item)) + item
    if isinstance(item, str):
        return head(3, len(item.encode())) + item.encode()
    if isinstance(item, list):
        return head(4, len(item)) + b"".join(cbor(x) for x in item)
    return head(5, len(item)) + b"".join(cbor(k) + cbor(v) for k, v in item.items())


def claims(jti: str, **overrides) -> dict:
    base = {"iss": ISSUER, "sub": "phone-anna", "aud": "car-WVW123", "jti": jti, "iat": 1767225600, "exp": FAR,
            "env": "int", "ch": ["ble", "nfc"], "cmd": ["unlock", "lock"], "role": "owner"}
    base.update(overrides)
    return base


def jws(key: ed25519.Ed25519PrivateKey, chain: list[x509.Certificate], body: dict) -> str:
    header = {"alg": "Ed25519", "typ": "JWT", "x5c": [der_b64(c) for c in chain]}
    signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64(json.dumps(body, separators=(",", ":")).encode())
    return signing_input + "." + b64(key.sign(signing_input.encode()))


def cwt(key: ed25519.Ed25519PrivateKey, chain: list[x509.Certificate], body: dict) -> str:
    keys = {"iss": 1, "sub": 2, "aud": 3, "exp": 4, "nbf": 5, "iat": 6, "jti": 7}
    protected = cbor({1: -19, 33: [c.public_bytes(serialization.Encoding.DER) for c in chain]})
    payload = cbor({keys.get(k, k): v for k, v in body.items()})
    signature = key.sign(cbor(["Signature1", protected, b"", payload]))
    return b64(cbor((18, [protected, {}, payload, signature])))


def main() -> None:
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    end = datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc)
    root_key, inter_key = p256("chain-root"), p256("chain-intermediate")
    leaf_key = ed25519.Ed25519PrivateKey.from_private_bytes(seed("chain-leaf"))
    root = certificate("Demo Operator Root", root_key, "Demo Operator Root", root_key, 1, ca=True,
                       not_before=start, not_after=end)
    inter = certificate("Demo Operator Issuing CA", inter_key, "Demo Operator Root", root_key, 2, ca=True,
                        not_before=start, not_after=end)
    leaf = certificate("Demo Operator Token Signer", leaf_key, "Demo Operator Issuing CA", inter_key, 3, ca=False,
                       not_before=start, not_after=end, dns=["keys.demo-operator.example"])
    stranger_key = p256("chain-stranger-root")
    stranger = certificate("Stranger Root", stranger_key, "Stranger Root", stranger_key, 4, ca=True,
                           not_before=start, not_after=end)
    stranger_leaf = certificate("Demo Operator Token Signer", leaf_key, "Stranger Root", stranger_key, 5, ca=False,
                                not_before=start, not_after=end, dns=["keys.demo-operator.example"])
    chain = [leaf, inter]
    lines = [
        (jws(leaf_key, chain, claims("demo-x001")), None),
        (cwt(leaf_key, chain, claims("demo-x002")), None),
        (jws(leaf_key, chain, claims("demo-x003", iss="https://keys.other-operator.example")), "wrong_issuer"),
        (jws(leaf_key, [stranger_leaf, stranger], claims("demo-x004")), "untrusted_chain"),
    ]
    with open(os.path.join(HERE, "anchors.pem"), "wb") as f:
        f.write(root.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(HERE, "chain-requests.jsonl"), "w") as f:
        f.write("\n".join(line for line, _ in lines) + "\n")
    with open(os.path.join(HERE, "chain-expected.jsonl"), "w") as f:
        for number, (line, reason) in enumerate(lines, start=1):
            verdict = {"line": number, "valid": reason is None, **({"reason": reason} if reason else {}),
                       **({"format": "cwt"} if "." not in line else {})}
            f.write(json.dumps(verdict) + "\n")


if __name__ == "__main__":
    main()

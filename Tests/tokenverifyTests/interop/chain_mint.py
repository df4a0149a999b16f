"""Certificate chains and chained tokens made without tokenverify, for ChainInteropTests.

Chains come from Python's `cryptography` and from the `openssl` command line (roots and
intermediates in RSA, P-384, P-256 and Ed25519; P-256 and Ed25519 leaves naming their issuer as a
subjectAltName URI and dNSName). Tokens: JWS with `x5c` minted by joserfc, CWTs with `x5chain`
(label 33) minted by pycose. Writes to OUT: anchors.pem (the roots tokenverify is given),
tokens.txt (one token a line), expected.json (per line: a name and the reason tokenverify must
give, null for valid) and at.txt (the check time, inside every certificate's validity but the
expired leaf's).

Used by chain_tokens.py.
"""

from __future__ import annotations

import datetime
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey
DAY = datetime.timedelta(days=1)


@dataclass
class Chain:
    """A leaf first chain (without its root), the root, the leaf's key and issuer name."""

    name: str
    certificates: list[x509.Certificate]
    root: x509.Certificate
    leaf_key: PrivateKey
    issuer: str


def new_key(kind: str) -> PrivateKey:
    if kind == "RSA":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if kind == "P-384":
        return ec.generate_private_key(ec.SECP384R1())
    if kind == "P-256":
        return ec.generate_private_key(ec.SECP256R1())
    return ed25519.Ed25519PrivateKey.generate()


def digest_for(key: PrivateKey) -> hashes.SHA256 | None:
    return None if isinstance(key, ed25519.Ed25519PrivateKey) else hashes.SHA256()


def issue(
    subject: str,
    key: PrivateKey,
    issuer: tuple[x509.Certificate, PrivateKey] | None,
    window: tuple[datetime.datetime, datetime.datetime],
    names: list[str] | None = None,
) -> x509.Certificate:
    """A certificate by `cryptography`: a CA when `names` is None, else a leaf naming them."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    signer_name, signer_key = (issuer[0].subject, issuer[1]) if issuer else (name, key)
    public = key.public_key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(signer_name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(window[0])
        .not_valid_after(window[1])
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer_key.public_key()), critical=False)
    )
    ca = names is None
    builder = builder.add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    usage = dict.fromkeys(["content_commitment", "key_encipherment", "data_encipherment", "key_agreement"], False)
    builder = builder.add_extension(
        x509.KeyUsage(
            digital_signature=not ca,
            key_cert_sign=ca,
            crl_sign=ca,
            encipher_only=False,
            decipher_only=False,
            **usage,
        ),
        critical=True,
    )
    if names:
        sans: list[x509.GeneralName] = [x509.UniformResourceIdentifier(names[0])]
        sans += [x509.DNSName(dns) for dns in names[1:]]
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(signer_key, digest_for(signer_key))


def python_chain(
    root_kind: str,
    inter_kind: str,
    leaf_kind: str,
    now: datetime.datetime,
    leaf_window: tuple[datetime.datetime, datetime.datetime] | None = None,
) -> Chain:
    label = f"py-{root_kind}-{inter_kind}-{leaf_kind}".lower()
    window = (now - 30 * DAY, now + 3650 * DAY)
    root_key, inter_key, leaf_key = new_key(root_kind), new_key(inter_kind), new_key(leaf_kind)
    root = issue(f"Root {label}", root_key, None, window)
    inter = issue(f"CA {label}", inter_key, (root, root_key), window)
    issuer = f"https://{label}.example/op"
    leaf = issue(
        f"signer {label}",
        leaf_key,
        (inter, inter_key),
        leaf_window or (now - DAY, now + 365 * DAY),
        [issuer, f"{label}.example"],
    )
    return Chain(label, [leaf, inter], root, leaf_key, issuer)


def openssl(*arguments: str) -> None:
    subprocess.run(["openssl", *arguments], check=True, capture_output=True)


def openssl_key(path: Path, kind: str) -> None:
    options = {
        "RSA": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        "P-384": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
        "P-256": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
        "Ed25519": ["-algorithm", "ED25519"],
    }[kind]
    openssl("genpkey", *options, "-out", str(path))


def openssl_chain(work: Path, root_kind: str, inter_kind: str, leaf_kind: str) -> Chain:
    """A chain by the `openssl` command line (req -x509 for the root, x509 -req for the others)."""
    label = f"ossl-{root_kind}-{inter_kind}-{leaf_kind}".lower()
    folder = work / label
    folder.mkdir()
    for name, kind in (("root", root_kind), ("inter", inter_kind), ("leaf", leaf_kind)):
        openssl_key(folder / f"{name}.key", kind)
    ca = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
    ids = "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n"
    issuer = f"https://{label}.example/op"
    (folder / "ca.ext").write_text(ca + ids)
    (folder / "leaf.ext").write_text(
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
        + ids
        + f"subjectAltName=URI:{issuer},DNS:{label}.example\n"
    )
    openssl(
        "req",
        "-x509",
        "-new",
        "-key",
        str(folder / "root.key"),
        "-subj",
        f"/CN=Root {label}",
        "-days",
        "3650",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        "-out",
        str(folder / "root.pem"),
    )
    for name, signer, subject in (("inter", "root", f"CA {label}"), ("leaf", "inter", f"signer {label}")):
        openssl(
            "req",
            "-new",
            "-key",
            str(folder / f"{name}.key"),
            "-subj",
            f"/CN={subject}",
            "-out",
            str(folder / f"{name}.csr"),
        )
        openssl(
            "x509",
            "-req",
            "-in",
            str(folder / f"{name}.csr"),
            "-CA",
            str(folder / f"{signer}.pem"),
            "-CAkey",
            str(folder / f"{signer}.key"),
            "-set_serial",
            str(x509.random_serial_number()),
            "-days",
            "3000" if name == "inter" else "365",
            "-extfile",
            str(folder / ("ca.ext" if name == "inter" else "leaf.ext")),
            "-out",
            str(folder / f"{name}.pem"),
        )
    key = serialization.load_pem_private_key((folder / "leaf.key").read_bytes(), password=None)
    assert isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey))
    leaf, inter, root = (load_pem(folder / f"{name}.pem") for name in ("leaf", "inter", "root"))
    return Chain(label, [leaf, inter], root, key, issuer)


def load_pem(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())

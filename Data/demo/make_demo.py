#!/usr/bin/env python3
"""Mints the demo data in this folder with an independent JOSE implementation.

The keys and tokens here are made by Python's `cryptography` package (OpenSSL underneath, but
none of tokenverify's code), so the test suite can check that tokenverify verifies tokens it did
not mint itself. The private keys are fixed DEMO KEYS, published here on purpose: never use them
for anything real. Rerun with `python3 Data/demo/make_demo.py` (needs `pip install cryptography`);
the ES256 signatures change on every run (ECDSA is randomised), the verdicts do not.
"""
import base64, hashlib, json, os
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives import hashes, serialization

HERE = os.path.dirname(os.path.abspath(__file__))

def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def seed(label: str) -> bytes:
    return hashlib.sha256(("tokenverify demo key " + label).encode()).digest()

ED = ed25519.Ed25519PrivateKey.from_private_bytes(seed("ed"))
ES = ec.derive_private_key(int.from_bytes(seed("es"), "big") % (2**256 - 2**224 - 1) + 1, ec.SECP256R1())
RETIRED = ed25519.Ed25519PrivateKey.from_private_bytes(seed("retired"))
STRANGER = ed25519.Ed25519PrivateKey.from_private_bytes(seed("stranger"))

def ed_jwk(key, kid, alg=None, **extra):
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64(raw), "kid": kid, "use": "sig"}
    if alg: jwk["alg"] = alg
    jwk.update(extra)
    return jwk

def es_jwk(key, kid, **extra):
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "EC", "crv": "P-256", "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big")),
           "kid": kid, "alg": "ES256", "use": "sig"}
    jwk.update(extra)
    return jwk

def sign(key, header: dict, claims: dict) -> str:
    signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
    if isinstance(key, ed25519.Ed25519PrivateKey):
        signature = key.sign(signing_input.encode())
    else:
        r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input + "." + b64(signature)

FAR = 4102444800  # 2100-01-01
def claims(jti, **overrides):
    base = {"iss": "demo-operator", "sub": "phone-anna", "aud": "car-WVW123", "jti": jti, "iat": 1767225600,
            "exp": FAR, "env": "int", "ch": ["ble", "nfc"], "cmd": ["unlock", "lock", "engine_start"], "role": "owner"}
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}

ed_header = {"alg": "Ed25519", "kid": "demo-ed25519-2026", "typ": "JWT"}
eddsa_header = {"alg": "EdDSA", "kid": "demo-ed25519-2026", "typ": "JWT"}
es_header = {"alg": "ES256", "kid": "demo-es256-2026", "typ": "dkt+jwt"}

valid_ed = sign(ED, ed_header, claims("demo-0001"))
valid_es = sign(ES, es_header, claims("demo-0002", sub="phone-ben", aud=["car-WVW123", "lock-garage-7"], role="friend",
                                      cmd=["unlock", "lock"], ch=["ble", "uwb"]))
tampered = valid_ed.rsplit(".", 2)
tampered[1] = b64(json.dumps(claims("demo-0001", cmd=["unlock", "lock", "engine_start", "trunk"]), separators=(",", ":")).encode())

lines = [
    # (input line, expected reason or None for valid)
    (valid_ed, None),
    (sign(ED, eddsa_header, claims("demo-0003", role="service", sub="phone-workshop")), None),
    (json.dumps({"id": "unlock-at-door", "token": valid_es, "device": "phone-ben", "object": "lock-garage-7",
                 "channel": "uwb", "command": "unlock"}), None),
    (json.dumps({"id": 4, "token": valid_es, "device": "phone-ben", "object": "car-WVW123", "channel": "ble",
                 "command": "engine_start"}), "command_not_permitted"),
    (json.dumps({"id": 5, "token": valid_ed, "device": "phone-mallory"}), "wrong_device"),
    ("", "blank"),
    (sign(ED, ed_header, claims("demo-0006", exp=1767229200)), "expired"),
    (sign(ED, ed_header, claims("demo-0007", nbf=FAR - 86400)), "not_yet_valid"),
    (sign(ED, ed_header, claims("demo-0008")), "revoked_token"),
    (sign(ES, es_header, claims("demo-0009", sub="phone-lost")), "revoked_device"),
    (sign(RETIRED, {"alg": "Ed25519", "kid": "demo-retired-2025"}, claims("demo-0010")), "revoked_key"),
    (".".join(tampered), "bad_signature"),
    (sign(STRANGER, {"alg": "Ed25519", "kid": "demo-unknown"}, claims("demo-0011")), "unknown_key"),
    (b64(b'{"alg":"none","kid":"demo-ed25519-2026"}') + "." + b64(json.dumps(claims("demo-0012")).encode()) + ".", "unsupported_alg"),
    (sign(ED, ed_header, claims("demo-0013", env="prod")), "wrong_environment"),
    ('{"token": "not-a-token", "colour": "red"}', "malformed_request"),
    ("this.is.not-a-token", "malformed_token"),
    # Security steps (SPEC §4b): phone-anna has only registered as a trusted phone, and unlock
    # also needs the device activation.
    (json.dumps({"id": "unlock-before-activation", "token": valid_ed, "device": "phone-anna", "object": "car-WVW123",
                 "command": "unlock"}), "step_required"),
    (json.dumps({"id": "lock-after-trusted-phone", "token": valid_ed, "object": "car-WVW123", "command": "lock"}), None),
]

# CWTs (SPEC §2b): COSE_Sign1 messages of CBOR, written here by a small encoder of our own.
def cbor(item) -> bytes:
    def head(major, n):
        for info, width in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 24: return bytes([major << 5 | n])
            if n < 1 << (8 * width): return bytes([major << 5 | info]) + n.to_bytes(width, "big")
    if isinstance(item, tuple): return head(6, item[0]) + cbor(item[1])   # (tag, value)
    if isinstance(item, int): return head(0, item) if item >= 0 else head(1, -1 - item)
    if isinstance(item, bytes): return head(2, len(item)) + item
    if isinstance(item, str): return head(3, len(item.encode())) + item.encode()
    if isinstance(item, list): return head(4, len(item)) + b"".join(cbor(x) for x in item)
    return head(5, len(item)) + b"".join(cbor(k) + cbor(v) for k, v in item.items())

CWT_KEYS = {"iss": 1, "sub": 2, "aud": 3, "exp": 4, "nbf": 5, "iat": 6, "jti": 7}

def sign_cwt(key, alg: int, kid: str, claims: dict, tags=(18,), kid_outside=False, presented=None, trailing=b"") -> str:
    protected = cbor({1: alg} if kid_outside else {1: alg, 4: kid.encode()})
    def claims_map(claims): return cbor({CWT_KEYS.get(k, k): v for k, v in claims.items()})
    payload = claims_map(claims)
    to_sign = cbor(["Signature1", protected, b"", payload])
    if isinstance(key, ed25519.Ed25519PrivateKey):
        signature = key.sign(to_sign)
    else:
        r, s = decode_dss_signature(key.sign(to_sign, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    message = [protected, {4: kid.encode()} if kid_outside else {}, claims_map(presented) if presented else payload, signature]
    for tag in reversed(tags):
        message = (tag, message)
    return b64(cbor(message) + trailing)

cwt_ed = sign_cwt(ED, -19, "demo-ed25519-2026", claims("demo-c001"))
cwt_es = sign_cwt(ES, -7, "demo-es256-2026", claims("demo-c002", sub="phone-ben", aud=["car-WVW123", "lock-garage-7"], role="friend",
                                                    cmd=["unlock", "lock"], ch=["ble", "uwb"]))
cwt_lines = [
    # A mixed stream: CWT and JWS lines, answered in order.
    (cwt_ed, None),
    (valid_ed, None),
    (json.dumps({"id": "cwt-at-door", "token": cwt_es, "device": "phone-ben", "object": "lock-garage-7", "channel": "uwb",
                 "command": "unlock"}), None),
    (sign_cwt(ED, -8, "demo-ed25519-2026", claims(b"\x01\x02\x03", role="service"), tags=(61, 18), kid_outside=True), None),
    (sign_cwt(ED, -19, "demo-ed25519-2026", claims("demo-c003", exp=1767229200)), "expired"),
    (sign_cwt(ED, -19, "demo-ed25519-2026", claims("demo-0008")), "revoked_token"),
    (sign_cwt(ED, -19, "demo-ed25519-2026", claims("demo-c004"), presented={**claims("demo-c004"), "cmd": ["unlock", "trunk"]}),
     "bad_signature"),
    (sign_cwt(ED, -35, "demo-ed25519-2026", claims("demo-c005")), "unsupported_alg"),
    (sign_cwt(ED, -19, "demo-ed25519-2026", claims("demo-c006"), trailing=b"\x00"), "malformed_token"),
    (json.dumps({"id": "cwt-unlock-before-activation", "token": cwt_ed, "device": "phone-anna", "object": "car-WVW123",
                 "command": "unlock"}), "step_required"),
]

with open(os.path.join(HERE, "keys.jwks"), "w") as f:
    json.dump({"keys": [
        ed_jwk(ED, "demo-ed25519-2026", env="int", iss="demo-operator"),
        es_jwk(ES, "demo-es256-2026", env="int", iss="demo-operator"),
        ed_jwk(RETIRED, "demo-retired-2025", alg="Ed25519"),
    ]}, f, indent=2)
    f.write("\n")
with open(os.path.join(HERE, "revocations.jsonl"), "w") as f:
    f.write('{"jti":"demo-0008"}\n{"sub":"phone-lost","issued_before":1798761600}\n{"kid":"demo-retired-2025"}\n')
    f.write('{"sub":"phone-anna","aud":"car-OLD999"}\n{"aud":"car-scrapped-1","since":"2026-06-01T00:00:00Z"}\n')
with open(os.path.join(HERE, "step-policy.json"), "w") as f:
    json.dump({"unlock": ["trustedPhone", "deviceActivation"],
               "engine_start": ["trustedPhone", "deviceActivation", "mediumCarKey"],
               "*": ["trustedPhone"]}, f, indent=2)
    f.write("\n")
with open(os.path.join(HERE, "device-steps.jsonl"), "w") as f:
    f.write('{"sub":"phone-anna","done":["trustedPhone"]}\n')
    f.write('{"sub":"phone-ben","aud":"lock-garage-7","done":["trustedPhone","deviceActivation"]}\n')
    f.write('{"sub":"phone-ben","aud":"car-WVW123","done":["trustedPhone"]}\n')
def write_stream(requests_name, expected_name, stream):
    with open(os.path.join(HERE, requests_name), "w") as f:
        f.write("\n".join(line for line, _ in stream) + "\n")
    with open(os.path.join(HERE, expected_name), "w") as f:
        number = 0
        for line, reason in stream:
            number += 1
            if reason == "blank":
                continue
            token = json.loads(line)["token"] if line.startswith("{") else line
            is_cwt = "." not in token and reason not in ("malformed_token", "malformed_request")
            f.write(json.dumps({"line": number, "valid": reason is None, **({"reason": reason} if reason else {}),
                                **({"format": "cwt"} if is_cwt else {})}) + "\n")
write_stream("requests.jsonl", "expected.jsonl", lines)
write_stream("cwt-requests.jsonl", "cwt-expected.jsonl", cwt_lines)

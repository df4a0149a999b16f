import FuzzSupport
import TokenVerifierTesting

/// Ed25519 signatures: `crypto_sign_verify_detached` and the per-key precomputed table must give
/// the same verdict on every (key, signature, message); see ``Ed25519PathCheck`` for the input's
/// layout.
runFuzzer { bytes in
    let verdicts = Ed25519PathCheck.verdicts(bytes)
    precondition(verdicts.sodium == verdicts.table, "crypto_sign_verify_detached and the per-key table disagree")
    // A 64-byte signature (any made here, or one the input holds whole) goes through a batch too.
    let whole = verdicts.signedHere || bytes.count >= 65
    precondition(
        whole ? verdicts.batched == verdicts.sodium : verdicts.batched == nil,
        "the per-key table's verdict in a batch differs")
}

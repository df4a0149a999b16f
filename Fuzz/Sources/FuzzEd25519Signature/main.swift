import FuzzSupport
import TokenVerifierTesting

/// Ed25519 signatures: `crypto_sign_verify_detached` and the per-key precomputed table must give
/// the same verdict on every (key, signature, message); see ``Ed25519PathCheck`` for the input's
/// layout.
runFuzzer { bytes in
    let verdicts = Ed25519PathCheck.verdicts(bytes)
    precondition(verdicts.standard == verdicts.table, "crypto_sign_verify_detached and the per-key table disagree")
    precondition(verdicts.batchAgrees, "the per-key table's verdict in a batch differs")
}

import FuzzSupport
import TokenVerifierTesting

/// ES256 signatures: EVP_PKEY_verify and the per-key precomputed table must give the same
/// verdict on every (key, signature, message); see ``ES256PathCheck`` for the input's layout.
runFuzzer { bytes in
    let verdicts = ES256PathCheck.verdicts(bytes)
    precondition(verdicts.evp == verdicts.table, "EVP and the per-key table disagree")
    // A 64-byte signature (any made here, or one the input holds whole) goes through a batch too.
    let whole = verdicts.signedHere || bytes.count >= 65
    precondition(
        whole ? verdicts.batched == verdicts.evp : verdicts.batched == nil,
        "the per-key table's verdict in a batch differs")
}

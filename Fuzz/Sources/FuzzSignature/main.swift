import FuzzSupport
import TokenVerifierTesting

/// ES256 signatures: EVP_PKEY_verify and the per-key precomputed table must give the same
/// verdict on every (key, signature, message); see ``ES256PathCheck`` for the input's layout.
runFuzzer { bytes in
    let verdicts = ES256PathCheck.verdicts(bytes)
    precondition(verdicts.standard == verdicts.table, "EVP and the per-key table disagree")
    precondition(verdicts.batchAgrees, "the per-key table's verdict in a batch differs")
}

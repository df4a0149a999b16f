import FuzzSupport
import TokenVerifierTesting

/// ES256 signatures: EVP_PKEY_verify and the per-key precomputed table must give the same
/// verdict on every (key, signature, message), and so must a batch's verify (the shared
/// inversion, and on a CPU with AVX-512 IFMA the wide path, eight lanes at a time); see
/// ``ES256PathCheck`` for the input's layout.
runFuzzer { bytes in
    let verdicts = ES256PathCheck.verdicts(bytes)
    precondition(verdicts.standard == verdicts.table, "EVP and the per-key table disagree")
    precondition(verdicts.batchAgrees, "the per-key table's verdict in a batch (shared inversion or wide path) differs")
}

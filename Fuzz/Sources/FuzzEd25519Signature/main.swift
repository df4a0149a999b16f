import FuzzSupport
import TokenVerifierTesting

/// Ed25519 signatures: `crypto_sign_verify_detached` and the per-key precomputed table must give
/// the same verdict on every (key, signature, message); see ``Ed25519PathCheck`` for the input's
/// layout. The batch (`tv_ed25519_table_verify_many`) is the wide path's where the CPU has AVX-512
/// IFMA (`tokenverify version` says `Ed25519: wide`), and then ``Ed25519PathCheck`` also puts the
/// signature through the wide walk in a batch of mixed keys and a padded tail.
runFuzzer { bytes in
    let verdicts = Ed25519PathCheck.verdicts(bytes)
    precondition(verdicts.standard == verdicts.table, "crypto_sign_verify_detached and the per-key table disagree")
    precondition(verdicts.batchAgrees, "the per-key table's verdict in a batch differs")
    precondition(Ed25519PathCheck.wideAgrees(bytes), "the wide path's verdict in a batch of mixed keys differs")
}

// For the tests only: the Ed25519 table path's start-up self-test run on deliberately broken
// paths, to show that it catches each (Tests/TokenVerifierTests/Ed25519TableSelfTestTests).
// Exposed as the explicit submodule CTokenEd25519.Testing, which the verifier does not import.
#ifndef TOKENVERIFY_CTOKENED25519_TESTING_H
#define TOKENVERIFY_CTOKENED25519_TESTING_H

#ifdef __cplusplus
extern "C" {
#endif

/// Faults that tv_ed25519_self_test_with_faults puts into the table path (for the tests): skip the
/// small-order check on R, skip the small-order check on the key, leave out the top comb window.
enum {
    TV_ED25519_FAULT_SKIP_SMALL_ORDER_R = 1,
    TV_ED25519_FAULT_SKIP_SMALL_ORDER_KEY = 2,
    TV_ED25519_FAULT_DROP_TOP_WINDOW = 4,
};

/// For the tests: 1 when the start-up self-test passes on the table path with `faults` (a set of
/// the flags above) put in; with 0, the verifier's own path. Each fault must make it fail.
int tv_ed25519_self_test_with_faults(int faults);

#ifdef __cplusplus
}
#endif

#endif

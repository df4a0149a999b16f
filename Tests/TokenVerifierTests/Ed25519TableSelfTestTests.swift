import CTokenEd25519.Testing
import Testing

/// The Ed25519 table path's start-up self-test: it passes on the verifier's own path and fails
/// on each deliberately broken one (the faults a table could have and still give the standard
/// call's verdict on ordinary valid and tampered signatures).
@Suite struct Ed25519TableSelfTestTests {
    @Test func passesOnTheVerifiersPath() throws {
        try Ed25519PathComparison.requireTablePath()
        #expect(tv_ed25519_self_test_with_faults(0) == 1)
    }

    @Test(arguments: [
        ("skips the small-order check on R", Int32(TV_ED25519_FAULT_SKIP_SMALL_ORDER_R)),
        ("skips the small-order check on the key", Int32(TV_ED25519_FAULT_SKIP_SMALL_ORDER_KEY)),
        ("drops the top comb window", Int32(TV_ED25519_FAULT_DROP_TOP_WINDOW)),
    ])
    func failsOnABrokenTable(_ fault: String, _ flags: Int32) throws {
        try Ed25519PathComparison.requireTablePath()
        #expect(tv_ed25519_self_test_with_faults(flags) == 0, "the self-test passed a table that \(fault)")
    }
}

import CTokenCrypto
import CTokenEd25519
import TestSupport
import Testing

@testable import TokenVerifier

/// The signature path each algorithm takes (``SignaturePath``): every status of the table paths'
/// set-up names its reason, a kind given no table memory takes the standard path, and on this
/// build (in CI: must) both algorithms take their tables (Ed25519's may be the wide path).
@Suite struct SignaturePathTests {
    @Test(arguments: [
        (TV_ED25519_TABLES_ON, TV_ED25519_WIDE_ON, SignaturePath.Kind.wide, "AVX-512 IFMA, 8 signatures at a time"),
        (TV_ED25519_TABLES_ON, TV_ED25519_WIDE_NO_CPU, .tables, "self-test passed; no wide path: this CPU has no AVX"),
        (TV_ED25519_TABLES_ON, TV_ED25519_WIDE_FORCED_OFF, .tables, "no wide path: TOKENVERIFY_SIGNATURE_PATH"),
        (TV_ED25519_TABLES_ON, TV_ED25519_WIDE_SELF_TEST_FAILED, .tables, "no wide path: its self-test"),
        (TV_ED25519_TABLES_ON, TV_ED25519_WIDE_SETUP_FAILED, .tables, "libsodium 1.0.18 internals found"),
        (TV_ED25519_TABLES_NOT_COMPILED, TV_ED25519_WIDE_NO_TABLES, .standard, "not compiled for libsodium 1.0.20"),
        (
            TV_ED25519_TABLES_OTHER_RUNTIME, TV_ED25519_WIDE_NO_TABLES, .standard,
            "libsodium 1.0.18 at run time is not libsodium 1.0.20"
        ),
        (
            TV_ED25519_TABLES_SELF_TEST_FAILED, TV_ED25519_WIDE_NO_TABLES, .standard,
            "self-test against crypto_sign_verify_detached failed"
        ),
        (TV_ED25519_TABLES_SETUP_FAILED, TV_ED25519_WIDE_NO_TABLES, .standard, "could not be set up"),
    ])
    func eachEd25519StatusNamesItsReason(_ status: Int, _ wide: Int, _ path: SignaturePath.Kind, _ reason: String) {
        let found = SignaturePath.ed25519(status: status, wide: wide, compiled: "1.0.20", running: "1.0.18")
        #expect(found.algorithm == "Ed25519" && found.path == path)
        #expect(found.reason.contains(reason), "\(found)")
    }

    /// The wide path names how it hashes: Intel's multi-buffer library and its version, or
    /// libsodium where the library was not loaded.
    @Test(arguments: [
        ("1.3.0", "SHA-512 eight at a time by Intel's multi-buffer library 1.3.0"),
        (nil, "SHA-512 one at a time by libsodium"),
    ])
    func theEd25519WidePathNamesItsHashing(_ library: String?, _ reason: String) {
        let found = SignaturePath.ed25519(
            status: Int(TV_ED25519_TABLES_ON), wide: Int(TV_ED25519_WIDE_ON), compiled: "1.0.18", running: "1.0.18",
            hashLibrary: library)
        #expect(found.path == .wide && found.reason.contains(reason), "\(found)")
    }

    @Test(arguments: [
        (TV_P256_TABLES_ON, SignaturePath.Kind.tables, "OpenSSL 3.9.0 precomputed a table, self-test passed"),
        (TV_P256_TABLES_NO_PRECOMPUTE, .standard, "built no precomputed table (EC_GROUP_precompute_mult)"),
        (TV_P256_TABLES_SELF_TEST_FAILED, .standard, "self-test against EVP_PKEY_verify failed"),
        (TV_P256_TABLES_SETUP_FAILED, .standard, "could not set up P-256"),
    ])
    func eachES256StatusNamesItsReason(_ status: Int, _ path: SignaturePath.Kind, _ reason: String) {
        let found = SignaturePath.es256(status: status, running: "3.9.0")
        #expect(found.algorithm == "ES256" && found.path == path)
        #expect(found.reason.contains(reason), "\(found)")
    }

    @Test(arguments: [
        (TV_P256_WIDE_ON, SignaturePath.Kind.wide, "AVX-512 IFMA, 8 signatures a batch step, self-tests passed"),
        (TV_P256_WIDE_NO_CPU, .tables, "CPU lacks AVX-512 IFMA"),
        (TV_P256_WIDE_FORCED_OFF, .tables, "wide path off (TOKENVERIFY_SIGNATURE_PATH)"),
        (TV_P256_WIDE_SELF_TEST_FAILED, .tables, "wide path self-test against EVP_PKEY_verify failed"),
    ])
    func eachES256WideStatusNamesItsReason(_ wide: Int, _ path: SignaturePath.Kind, _ reason: String) {
        let found = SignaturePath.es256(status: Int(TV_P256_TABLES_ON), wide: wide, running: "3.9.0")
        #expect(found.algorithm == "ES256" && found.path == path)
        #expect(found.reason.contains(reason), "\(found)")
        #expect(found.description.hasPrefix("ES256: \(path.rawValue) ("), "\(found)")
        // The wide path rests on the tables: without them it is the standard path whatever the CPU.
        let noTables = SignaturePath.es256(status: Int(TV_P256_TABLES_NO_PRECOMPUTE), wide: wide, running: "3.9.0")
        #expect(noTables.path == .standard)
    }

    /// Less memory than one table is the standard path, the option named; the other kind keeps
    /// its own path.
    @Test func aKindWithoutTableMemoryTakesTheStandardPath() throws {
        try Self.requireTables()
        let paths = SignaturePath.inUse(VerificationOptions(tableMemory: TableMemory(es256: 0, ed25519: 1000)))
        #expect(paths.map(\.algorithm) == ["ES256", "Ed25519"])
        #expect(paths.allSatisfy { $0.path == .standard }, "\(paths)")
        #expect(paths[0].reason.contains("--table-memory es256=0"), "\(paths[0])")
        #expect(paths[1].reason.contains("--table-memory ed25519=1000"), "\(paths[1])")
        let one = SignaturePath.inUse(VerificationOptions(tableMemory: TableMemory(es256: 0)))
        #expect(one[0].path == .standard && one[1].path != .standard, "\(one)")
    }

    /// The check CI runs on its image (scripts/check-signature-paths runs the binary's): both
    /// algorithms take their tables, or the failure names why not.
    @Test func bothAlgorithmsTakeTheirTablesHere() throws {
        try Self.requireTables()
        #expect(tv_p256_table_status() == TV_P256_TABLES_ON)
        #expect(tv_ed25519_table_status() == TV_ED25519_TABLES_ON)
        #expect(P256KeyTable.kind.path() == P256KeyTable.path && Ed25519KeyTable.kind.path() == Ed25519KeyTable.path)
    }

    @Test func theLibrariesAreNamedWithBothVersions() {
        let libraries = SignatureLibrary.all
        #expect(libraries.map(\.name) == ["libsodium", "OpenSSL"])
        #expect(libraries.allSatisfy { !$0.compiled.isEmpty && !$0.running.isEmpty }, "\(libraries)")
        #expect(libraries[0].running.split(separator: ".").count == 3, "\(libraries[0])")
    }

    /// Both table paths on this build: skipped elsewhere with the reasons, failed in CI.
    static func requireTables() throws {
        let off = SignaturePath.inUse().filter { $0.path == .standard }
        try ExternalRequirement.require(
            off.isEmpty, "the signature tables are off: \(off.map(\.description).joined(separator: "; "))")
    }
}

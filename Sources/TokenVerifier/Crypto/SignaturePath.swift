internal import CSodium
internal import CTokenCrypto
internal import CTokenEd25519

/// The signature path one algorithm's keys take in this process, and why: `tables` (each key's
/// precomputed table, built in the background on its first use), `wide` (the tables, with a
/// batch's point arithmetic run eight signatures at a time with AVX-512 IFMA) or `standard` (the
/// library's own call, `crypto_sign_verify_detached` or `EVP_PKEY_verify`, for every key). All give
/// the same verdict on every input; the tables are about three times faster than the standard
/// call, the wide path two and a half to three times faster than the tables in a batch. What
/// `tokenverify version` prints and the metrics file's `tokenverify_signature_path` gauge carries.
public struct SignaturePath: Sendable, Equatable, CustomStringConvertible {
    /// The three paths.
    public enum Kind: String, Sendable {
        case tables, wide, standard
    }

    /// `Ed25519` or `ES256`.
    public var algorithm: String
    /// The path its keys take.
    public var path: Kind
    /// Why, in words: what was found (the library's version, the self-test's outcome) or set.
    public var reason: String

    /// "Ed25519: tables (libsodium 1.0.18 internals found, self-test passed)".
    public var description: String { "\(algorithm): \(path.rawValue) (\(reason))" }

    /// Each algorithm's path under `options` (its table memory; a kind given less than one table
    /// takes the standard path). The first call runs the table paths' self-tests if no key has
    /// yet (a few milliseconds for Ed25519, about 40 ms for ES256).
    public static func inUse(_ options: VerificationOptions = VerificationOptions()) -> [SignaturePath] {
        KeyTableKind.all.map { kind in kind.path().limited(to: kind.memory(options), kind) }
    }

    /// The path when a kind has `bytes` of table memory under `cap`: the standard one when the
    /// cap says so or no table fits.
    func limited(to bytes: Int, _ kind: KeyTableKind, cap: SignaturePathCap = .current) -> SignaturePath {
        guard path != .standard else { return self }
        if cap == .standard {
            return SignaturePath(
                algorithm: algorithm, path: .standard,
                reason: "\(SignaturePathCap.variable)=standard keeps every key on the library's own call")
        }
        guard bytes < kind.bytesPerTable else { return self }
        return SignaturePath(
            algorithm: algorithm, path: .standard,
            reason:
                "table memory \(bytes) holds no table of \(kind.bytesPerTable) bytes (--table-memory \(kind.name)=\(bytes))"
        )
    }

    /// The Ed25519 path for a `tv_ed25519_table_status` and a `tv_ed25519_wide_status` value,
    /// with the libsodium versions the build was compiled against and runs with, and the version
    /// of Intel's multi-buffer library the wide path hashes with (nil: libsodium hashes).
    static func ed25519(
        status: Int, wide: Int, compiled: String, running: String, hashLibrary: String? = nil
    ) -> SignaturePath {
        let (path, reason): (Kind, String) =
            switch status {
            case TV_ED25519_TABLES_ON where wide == TV_ED25519_WIDE_ON:
                (
                    .wide,
                    "AVX-512 IFMA, 8 signatures at a time, \(wideHashing(hashLibrary)); libsodium \(running) internals found, self-tests passed"
                )
            case TV_ED25519_TABLES_ON:
                (.tables, "libsodium \(running) internals found, self-test passed; \(wideOff(wide))")
            case TV_ED25519_TABLES_NOT_COMPILED:
                (.standard, "not compiled for libsodium \(compiled): the table path is written for libsodium 1.0.18")
            case TV_ED25519_TABLES_OTHER_RUNTIME:
                (
                    .standard,
                    "libsodium \(running) at run time is not libsodium \(compiled), whose internals were linked"
                )
            case TV_ED25519_TABLES_SELF_TEST_FAILED:
                (.standard, "self-test against crypto_sign_verify_detached failed on libsodium \(running)")
            default: (.standard, "libsodium could not be set up (sodium_init or memory)")
            }
        return SignaturePath(algorithm: "Ed25519", path: path, reason: reason)
    }

    /// How the Ed25519 wide path hashes R‖A‖M, for `tv_ed25519_wide_hash_library`'s answer.
    static func wideHashing(_ library: String?) -> String {
        guard let library else {
            return "SHA-512 one at a time by libsodium (libIPSec_MB.so.1, version 1.3, not loaded)"
        }
        return "SHA-512 eight at a time by Intel's multi-buffer library \(library)"
    }

    /// Why the Ed25519 wide path is off with the tables on, for a `tv_ed25519_wide_status` value.
    static func wideOff(_ wide: Int) -> String {
        switch wide {
        case TV_ED25519_WIDE_NO_CPU: "no wide path: this CPU has no AVX-512 IFMA (or the OS does not save its state)"
        case TV_ED25519_WIDE_FORCED_OFF: "no wide path: TOKENVERIFY_SIGNATURE_PATH turns it off"
        case TV_ED25519_WIDE_SELF_TEST_FAILED: "no wide path: its self-test against crypto_sign_verify_detached failed"
        default: "no wide path: it could not be set up (memory)"
        }
    }

    /// The ES256 path for a `tv_p256_table_status` value and a `tv_p256_wide_status` value (the
    /// 8-lane AVX-512 IFMA batch verify, over the tables), with the OpenSSL version running.
    static func es256(status: Int, wide: Int = Int(TV_P256_WIDE_NO_TABLES), running: String) -> SignaturePath {
        let (path, reason): (Kind, String) =
            switch (status, wide) {
            case (TV_P256_TABLES_ON, TV_P256_WIDE_ON):
                (.wide, "AVX-512 IFMA, 8 signatures a batch step, self-tests passed; OpenSSL \(running) tables")
            case (TV_P256_TABLES_ON, TV_P256_WIDE_NO_CPU):
                (.tables, "OpenSSL \(running) precomputed a table, self-test passed; CPU lacks AVX-512 IFMA")
            case (TV_P256_TABLES_ON, TV_P256_WIDE_FORCED_OFF):
                (
                    .tables,
                    "OpenSSL \(running) precomputed a table, self-test passed; wide path off (TOKENVERIFY_SIGNATURE_PATH)"
                )
            case (TV_P256_TABLES_ON, TV_P256_WIDE_SELF_TEST_FAILED):
                (
                    .tables,
                    "OpenSSL \(running) precomputed a table, self-test passed; wide path self-test against EVP_PKEY_verify failed"
                )
            case (TV_P256_TABLES_ON, _): (.tables, "OpenSSL \(running) precomputed a table, self-test passed")
            case (TV_P256_TABLES_NO_PRECOMPUTE, _):
                (.standard, "OpenSSL \(running) built no precomputed table (EC_GROUP_precompute_mult)")
            case (TV_P256_TABLES_SELF_TEST_FAILED, _):
                (.standard, "self-test against EVP_PKEY_verify failed on OpenSSL \(running)")
            default: (.standard, "OpenSSL \(running) could not set up P-256")
            }
        return SignaturePath(algorithm: "ES256", path: path, reason: reason)
    }
}

/// A library a signature path rests on: the version this build was compiled against and the one
/// loaded at run time (they differ after a distribution update until the binary is rebuilt).
public struct SignatureLibrary: Sendable, Equatable {
    /// `libsodium` or `OpenSSL`.
    public var name: String
    public var compiled: String
    public var running: String

    /// libsodium and OpenSSL, as this process has them.
    public static var all: [SignatureLibrary] {
        [
            SignatureLibrary(name: "libsodium", compiled: libsodiumCompiled, running: libsodiumRunning),
            SignatureLibrary(name: "OpenSSL", compiled: openSSLCompiled, running: openSSLRunning),
        ]
    }

    static var libsodiumCompiled: String { String(cString: tv_ed25519_libsodium_compiled()) }
    static var libsodiumRunning: String { String(cString: sodium_version_string()) }
    static var openSSLCompiled: String { String(cString: tv_openssl_version_compiled()) }
    static var openSSLRunning: String { String(cString: tv_openssl_version_running()) }
}

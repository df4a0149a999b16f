// swift-tools-version:6.0
import PackageDescription

// tokenverify: bulk and streaming verification of signed access tokens for digital car keys.
//
// Layers, bottom up (each knows only the ones below it):
//   CSodium, COpenSSL,  system libraries (libsodium, OpenSSL 3 libcrypto, zlib for status lists),
//   CZlib               found with pkg-config
//   TokenConcurrency    the concurrency primitives shared by the engines: the lock-free work ring
//                       and queue, the reorder ring, the lane pool, ordered production on worker
//                       threads, and the one stop-signal mechanism (flags set by signal handlers).
//                       What has a single user stays with it, on Dispatch directly: the batch API's
//                       wait for its lanes and the key-table builder's background queue
//                       (TokenVerifier), the pipeline's bound on chunks in flight, its worker queues
//                       and the live-state poll timer (TokenStream), clocks for rates (TokenGen).
//                       Verification takes no lock: the two Mutexes are gen's (ordered production, per
//                       chunk; the signing-rate figures, once per thread).
//   CTokenCrypto        ES256 verification in C over OpenSSL: public keys, verify contexts, r‖s
//                       handling, the per-key comb tables and arithmetic modulo the group order
//   CTokenEd25519       Ed25519 verification in C: per-key tables over libsodium's own point
//                       functions, with a start-up self-test against crypto_sign_verify_detached
//   CTokenSigning       all of the project's signing C: P-256 private keys, OpenSSL's randomised
//                       ES256 signing and an RFC 6979 deterministic signer (tools and tests only)
//   TokenVerifier       the verification library: keys, revocations, the parsed token, the checks
//                       (one file each, composed in the spec's order), signature back ends, caches, and a
//                       safe public API (sync, batch and async), the three-pass batch engine they
//                       and the line protocol share; verdicts only, no output format (an answer
//                       reads a valid verdict's texts through a borrowed view, AnswerTexts)
//   TokenTools          what only the tools need: signing keys and token signing, key import
//                       (PEM, DER, JWK), RFC 7638 thumbprints, CWT signing
//   TokenVerifierTesting  what the tests and the fuzz harnesses share: both paths of each signature
//                       back end on one input, with fixed private keys; never a dependency of the tools
//   LineProtocol        spec §6, the wire formats: request lines parsed in, answers out as JSON
//                       lines or Arrow record batches
//   TokenStream         the streaming engine of `verify`: reader, chunks to workers on Dispatch
//                       queues through TokenConcurrency's rings, ordered output, live-state reload
//   TokenGen            reproducible synthetic token sets (for `gen`, tests and the benchmark)
//   CTokenHTTP          one HTTPS GET in C over libcurl, loaded with dlopen by `fetch` only
//   TokenFetch          `fetch`: key sets and status lists downloaded over HTTPS, checked by
//                       verify's loaders (TokenVerifier, TokenStream's folder listing), renamed
//                       into place; the --watch schedule
//   tokenverify         the command line
//
// No unsafe flags (SwiftPM refuses them in a dependency pinned by version): the hot path stays
// inside TokenVerifier (its batch engine), so Swift's default cross-module optimisation suffices.

let package = Package(
    name: "tokenverify",
    products: [
        .library(name: "TokenConcurrency", targets: ["TokenConcurrency"]),
        .library(name: "TokenVerifier", targets: ["TokenVerifier"]),
        .library(name: "LineProtocol", targets: ["LineProtocol"]),
        .library(name: "TokenStream", targets: ["TokenStream"]),
        .library(name: "TokenTools", targets: ["TokenTools"]),
        .library(name: "TokenGen", targets: ["TokenGen"]),
        .library(name: "TokenFetch", targets: ["TokenFetch"]),
        // For the fuzz package (Fuzz/) and the tests only.
        .library(name: "TokenVerifierTesting", targets: ["TokenVerifierTesting"]),
        // The verification C back ends, for the benchmark package's raw-rate reference (its C
        // includes their headers); not an API.
        .library(name: "_CTokenVerification", targets: ["CTokenCrypto", "CTokenEd25519"]),
        .executable(name: "tokenverify", targets: ["tokenverify"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // `swift package generate-documentation --target TokenVerifier` (the DocC catalog).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "CTokenCrypto",
            dependencies: ["COpenSSL"],
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        // libsodium's point functions are internal to it: in libsodium.a, not exported by the shared
        // library. `:libsodium.a` names that archive to the linker (an ordinary library name, no
        // unsafe flag); only the members holding those functions are taken from it. The public calls
        // still come from the shared library at run time, so ed25519_table.c makes no table unless
        // the shared library's version is the archive's (sodium_version_string()).
        .target(
            name: "CTokenEd25519",
            dependencies: ["CSodium"],
            linkerSettings: [.linkedLibrary(":libsodium.a")]
        ),
        .target(
            name: "CTokenSigning",
            dependencies: ["COpenSSL", "CTokenCrypto"],
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        .target(name: "CTokenPrefetch"),
        .target(name: "CTokenSipHash"),
        .target(name: "CTokenBase64"),
        .target(
            name: "TokenConcurrency",
            dependencies: [.product(name: "Atomics", package: "swift-atomics")]
        ),
        .target(
            name: "TokenVerifier",
            dependencies: [
                "TokenConcurrency",
                "CSodium",
                "CTokenCrypto",
                "CTokenEd25519",
                "CTokenBase64",
                "CTokenPrefetch",
                "CTokenSipHash",
                "CZlib",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            linkerSettings: [.linkedLibrary("sodium")]
        ),
        .target(
            name: "LineProtocol",
            dependencies: ["TokenVerifier"]
        ),
        .target(
            name: "TokenStream",
            dependencies: [
                "TokenConcurrency",
                "TokenVerifier",
                "LineProtocol",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .target(
            name: "TokenTools",
            dependencies: ["TokenVerifier", "CSodium", "CTokenCrypto", "CTokenSigning"],
            linkerSettings: [.linkedLibrary("sodium")]
        ),
        .target(
            name: "TokenVerifierTesting",
            dependencies: ["TokenVerifier", "CSodium", "CTokenSigning"],
            linkerSettings: [.linkedLibrary("sodium")]
        ),
        .target(
            name: "TokenGen",
            dependencies: ["TokenConcurrency", "TokenVerifier", "TokenTools"]
        ),
        // libcurl is opened with dlopen when `fetch` first needs it: no other command, and no
        // machine that never fetches, needs libcurl.so.4; curl.h (libcurl4-openssl-dev) is read
        // at build time for its constants only.
        .target(
            name: "CTokenHTTP"
        ),
        .target(
            name: "TokenFetch",
            dependencies: ["CTokenHTTP", "TokenConcurrency", "TokenVerifier", "TokenStream"]
        ),
        .executableTarget(
            name: "tokenverify",
            dependencies: [
                "TokenConcurrency",
                "TokenVerifier",
                "LineProtocol",
                "TokenStream",
                "TokenTools",
                "TokenGen",
                "TokenFetch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Keys, claims and tokens shared by the test targets.
        .target(
            name: "TestSupport",
            dependencies: ["TokenVerifier", "TokenTools"],
            path: "Tests/TestSupport",
            exclude: ["https_publisher.py"]
        ),
        .testTarget(
            name: "TokenConcurrencyTests",
            dependencies: ["TokenConcurrency"]
        ),
        .testTarget(
            name: "TokenVerifierTests",
            dependencies: [
                "TokenVerifier", "TokenVerifierTesting", "TokenTools", "TokenGen", "TestSupport", "TokenConcurrency",
                "CSodium",
                "CTokenCrypto", "CTokenEd25519",
            ]
        ),
        .testTarget(
            name: "TokenToolsTests",
            dependencies: ["TokenTools", "TokenVerifier", "TestSupport"]
        ),
        .testTarget(
            name: "LineProtocolTests",
            dependencies: ["LineProtocol", "TokenVerifier", "TokenGen", "TestSupport"]
        ),
        .testTarget(
            name: "TokenStreamTests",
            dependencies: [
                "TokenStream", "LineProtocol", "TokenVerifier", "TokenGen", "TestSupport", "TokenConcurrency",
            ]
        ),
        .testTarget(
            name: "tokenverifyTests",
            dependencies: ["TokenVerifier", "TokenTools", "TokenGen", "TestSupport", "TokenConcurrency"]
        ),
        .testTarget(
            name: "TokenFetchTests",
            dependencies: ["TokenFetch", "TokenVerifier", "TokenTools", "TestSupport"]
        ),
        .testTarget(
            name: "TokenGenTests",
            dependencies: ["TokenGen", "TokenTools", "TokenVerifier"]
        ),
    ]
)

// swift-tools-version:6.0
import PackageDescription

// tokenverify: bulk and streaming verification of signed access tokens for digital car keys.
// The modules, their layers and what each holds: docs/layout.md.
//
// No unsafe flags (SwiftPM refuses them in a dependency pinned by version): the hot path stays
// inside TokenVerifier (its batch engine), so Swift's default cross-module optimisation suffices.

let package = Package(
    name: "tokenverify",
    products: [
        // The library: verification of tokens, key sets, chains, revocations and status lists
        // (its DocC catalog: Sources/TokenVerifier/TokenVerifier.docc). Every other module is
        // internal to this package (`package` access).
        .library(name: "TokenVerifier", targets: ["TokenVerifier"]),
        .executable(name: "tokenverify", targets: ["tokenverify"]),
        // For this repository's Benchmarks/ and Fuzz/ packages only: the token generator, the
        // signing tools, the pipeline, the line protocol, the signature paths side by side and
        // the verification C back ends they measure and fuzz. Not an API and not under semver (the
        // leading underscore, as swift-nio marks such products); its modules make public only
        // what those two packages call.
        .library(
            name: "_TokenVerifierInternals",
            targets: [
                "TokenGen", "TokenTools", "TokenStream", "LineProtocol", "TokenVerifierTesting", "CTokenCrypto",
                "CTokenEd25519",
            ]
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // `swift package generate-documentation --target TokenVerifier` (the DocC catalog).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The Prometheus text exposition of `--metrics-file` (SPEC §6b): counters, gauges, their
        // HELP and TYPE lines and label escaping.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
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
        .target(
            name: "CTokenX509",
            dependencies: ["COpenSSL"],
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        .target(name: "CTokenPrefetch"),
        .target(name: "CTokenSipHash"),
        .target(name: "CTokenBase64"),
        .target(
            name: "TokenConcurrency",
            dependencies: [.product(name: "Atomics", package: "swift-atomics")]
        ),
        // The encodings written (the JSON writer and its byte cursor, the CBOR writer) and lines
        // split, below TokenVerifier: its JSON Lines loaders split lines, its CWT checks write
        // the Sig_structure; LineProtocol and TokenTools write JSON and CBOR. Reading is TokenVerifier's.
        .target(name: "TokenFormats"),
        .target(
            name: "TokenVerifier",
            dependencies: [
                "TokenConcurrency",
                "TokenFormats",
                "CSodium",
                "CTokenCrypto",
                "CTokenEd25519",
                "CTokenX509",
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
            dependencies: ["TokenFormats", "TokenVerifier"]
        ),
        .target(
            name: "LiveState",
            dependencies: ["TokenConcurrency", "TokenVerifier"]
        ),
        .target(
            name: "TokenStream",
            dependencies: [
                "TokenConcurrency",
                "TokenFormats",
                "TokenVerifier",
                "LineProtocol",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .target(
            name: "TokenTools",
            dependencies: ["TokenFormats", "TokenVerifier", "CSodium", "CTokenCrypto", "CTokenSigning", "CZlib"],
            linkerSettings: [.linkedLibrary("sodium")]
        ),
        .target(
            name: "TokenVerifierTesting",
            dependencies: ["TokenVerifier", "CSodium", "CTokenSigning", "CTokenEd25519"],
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
            dependencies: ["CTokenHTTP", "TokenConcurrency", "TokenVerifier", "LiveState"]
        ),
        .target(
            name: "TokenMetrics",
            dependencies: [
                "TokenConcurrency", "TokenVerifier", "LiveState", "TokenStream", "TokenFetch",
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "tokenverify",
            dependencies: [
                "TokenConcurrency",
                "TokenFormats",
                "TokenVerifier",
                "LineProtocol",
                "LiveState",
                "TokenStream",
                "TokenTools",
                "TokenGen",
                "TokenFetch",
                "TokenMetrics",
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
            dependencies: ["TokenConcurrency", "TestSupport"]
        ),
        .testTarget(
            name: "TokenFormatsTests",
            dependencies: ["TokenFormats"]
        ),
        .testTarget(
            name: "TokenVerifierTests",
            dependencies: [
                "TokenVerifier", "TokenVerifierTesting", "TokenFormats", "TokenTools", "TokenGen", "TestSupport",
                "TokenConcurrency",
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
            dependencies: ["LineProtocol", "TokenFormats", "TokenVerifier", "TokenGen", "TestSupport"]
        ),
        .testTarget(
            name: "LiveStateTests",
            dependencies: ["LiveState", "TokenVerifier", "TokenTools", "TestSupport", "TokenConcurrency"]
        ),
        .testTarget(
            name: "TokenStreamTests",
            dependencies: [
                "TokenStream", "LineProtocol", "TokenFormats", "TokenVerifier", "TokenGen", "TestSupport",
                "TokenConcurrency",
            ]
        ),
        .testTarget(
            name: "tokenverifyTests",
            dependencies: ["TokenVerifier", "TokenTools", "TokenGen", "TestSupport", "TokenConcurrency"],
            exclude: ["interop"]
        ),
        .testTarget(
            name: "TokenFetchTests",
            dependencies: ["TokenFetch", "TokenVerifier", "TokenTools", "TestSupport"]
        ),
        .testTarget(
            name: "TokenMetricsTests",
            dependencies: [
                "TokenMetrics", "TokenConcurrency", "TokenVerifier", "LiveState", "TokenStream", "TestSupport",
            ]
        ),
        .testTarget(
            name: "TokenGenTests",
            dependencies: ["TokenGen", "TokenTools", "TokenVerifier"]
        ),
    ]
)

// swift-tools-version:6.0
import PackageDescription

// tokenverify: bulk and streaming verification of signed access tokens for digital car keys.
//
// Layers, bottom up:
//   CSodium, COpenSSL   system libraries (libsodium, OpenSSL 3 libcrypto), found with pkg-config
//   CTokenCrypto        a small C file: P-256 keys, verify contexts and r‖s handling over OpenSSL
//   TokenVerifier       the verification library: parsing, keys, revocations, checks, batches
//   TokenStream         the streaming engine of `tokenverify verify`: lines in, answers out, hot reload
//   TokenGen            reproducible synthetic token sets (for `gen`, tests and the benchmark)
//   tokenverify         the command line
let package = Package(
    name: "tokenverify",
    products: [
        .library(name: "TokenVerifier", targets: ["TokenVerifier"]),
        .library(name: "TokenStream", targets: ["TokenStream"]),
        .library(name: "TokenGen", targets: ["TokenGen"]),
        .executable(name: "tokenverify", targets: ["tokenverify"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
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
        .target(
            name: "CTokenCrypto",
            dependencies: ["COpenSSL"],
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        .target(
            name: "TokenVerifier",
            dependencies: [
                "CSodium",
                "CTokenCrypto",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            linkerSettings: [.linkedLibrary("sodium")]
        ),
        .target(
            name: "TokenStream",
            dependencies: [
                "TokenVerifier",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .target(
            name: "TokenGen",
            dependencies: ["TokenVerifier", "CSodium", "CTokenCrypto"]
        ),
        .executableTarget(
            name: "tokenverify",
            dependencies: [
                "TokenVerifier",
                "TokenStream",
                "TokenGen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TokenVerifierTests",
            dependencies: ["TokenVerifier"]
        ),
        .testTarget(
            name: "TokenStreamTests",
            dependencies: ["TokenStream", "TokenVerifier"]
        ),
        .testTarget(
            name: "tokenverifyTests",
            dependencies: ["TokenVerifier", "TokenGen"]
        ),
    ]
)

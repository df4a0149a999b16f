// swift-tools-version:6.0
import PackageDescription

// libFuzzer harnesses for tokenverify's parsers and signature paths. Built only by
// `Fuzz/run` with `-sanitize=fuzzer,address`; the main package never depends on this one.
let package = Package(
    name: "tokenverify-fuzz",
    dependencies: [
        .package(name: "tokenverify", path: "../")
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "TokenVerifier", package: "tokenverify"),
                .product(name: "_TokenVerifierInternals", package: "tokenverify"),
            ]),
        .executableTarget(
            name: "FuzzToken", dependencies: ["FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzCWT", dependencies: ["FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzRequestLine",
            dependencies: ["FuzzSupport", .product(name: "_TokenVerifierInternals", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzKeySet", dependencies: ["FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzSignature",
            dependencies: ["FuzzSupport", .product(name: "_TokenVerifierInternals", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzEd25519Signature",
            dependencies: ["FuzzSupport", .product(name: "_TokenVerifierInternals", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzStatusList",
            dependencies: ["FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify")]),
        .executableTarget(
            name: "FuzzChain",
            dependencies: [
                "FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify"),
                .product(name: "_TokenVerifierInternals", package: "tokenverify"),
            ],
            exclude: ["anchors.pem"]),
        .executableTarget(
            name: "FuzzCertificate",
            dependencies: [
                "FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify"),
                .product(name: "_TokenVerifierInternals", package: "tokenverify"),
            ]),
        .executableTarget(
            name: "FuzzRevocations",
            dependencies: ["FuzzSupport", .product(name: "TokenVerifier", package: "tokenverify")]),
    ]
)

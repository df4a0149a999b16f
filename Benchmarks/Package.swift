// swift-tools-version:6.0
import PackageDescription

// tokenbench (spec §8): throughput, latency and efficiency against the raw signature back ends.
// A nested package, so that the main build never depends on the benchmark's dependencies.
let package = Package(
    name: "tokenverify-benchmarks",
    dependencies: [
        .package(name: "tokenverify", path: "../"),
        .package(name: "tokenbench-report", path: "TokenBenchReport"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
    ],
    targets: [
        .target(
            name: "CRawCrypto",
            dependencies: [.product(name: "_TokenVerifierInternals", package: "tokenverify")],
            linkerSettings: [.linkedLibrary("sodium"), .linkedLibrary("crypto")]
        ),
        .executableTarget(
            name: "tokenbench",
            dependencies: [
                "CRawCrypto",
                .product(name: "TokenBenchReport", package: "tokenbench-report"),
                .product(name: "TokenVerifier", package: "tokenverify"),
                .product(name: "_TokenVerifierInternals", package: "tokenverify"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
    ]
)

// swift-tools-version:6.0
import PackageDescription

// tokenbench's report: its formats (table, JSON, Markdown, github-action-benchmark), the
// baseline gate, the SVG plots and the callgrind reader. A package of its own, with no
// dependencies, so that its tests build and run in seconds (`swift test --package-path
// Benchmarks/TokenBenchReport`) without building the verifier.
let package = Package(
    name: "tokenbench-report",
    products: [.library(name: "TokenBenchReport", targets: ["TokenBenchReport"])],
    targets: [
        .target(name: "TokenBenchReport"),
        .testTarget(name: "TokenBenchReportTests", dependencies: ["TokenBenchReport"]),
    ]
)

// swift-tools-version:6.0
import Foundation
import PackageDescription

// A package outside tokenverify that depends on it by version, as a server author's would.
// scripts/test-consumer clones the checkout, tags the clone with the version `tokenverify
// --version` reports and sets TOKENVERIFY_URL (file://…) and TOKENVERIFY_VERSION.
let environment = ProcessInfo.processInfo.environment
let url = environment["TOKENVERIFY_URL"] ?? "https://github.com/example/tokenverify.git"
let version = Version(environment["TOKENVERIFY_VERSION"] ?? "0.1.0")!

let package = Package(
    name: "DemoConsumer",
    dependencies: [
        .package(url: url, from: version)
    ],
    targets: [
        .executableTarget(
            name: "DemoConsumer",
            dependencies: [.product(name: "TokenVerifier", package: "tokenverify")]
        )
    ]
)

// swift-tools-version:6.0
import PackageDescription

// The peer for tokenbench's comparison: vapor/jwt-kit verifying the same token file on the same
// number of threads. Its own package, so neither tokenverify nor tokenbench depends on jwt-kit.
let package = Package(
    name: "jwtkit-peer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1")
    ],
    targets: [
        .executableTarget(
            name: "jwtkit-verify",
            dependencies: [.product(name: "JWTKit", package: "jwt-kit")]
        )
    ]
)

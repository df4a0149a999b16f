internal import CSodium

/// libsodium, initialised once before first use: the package's one entry to it (the verifier's
/// checks, the tools' signing and random bytes).
package enum Sodium {
    /// Calls `sodium_init` once; every entry point into libsodium goes through here first.
    package static let ready: Bool = sodium_init() >= 0

    /// `count` bytes from libsodium's random source (the operating system's).
    package static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(ready, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }
}

internal import CSodium

/// libsodium, initialised once before first use.
package enum Sodium {
    /// Calls `sodium_init` once; every entry point into libsodium goes through here first.
    package static let ready: Bool = sodium_init() >= 0

    /// `count` bytes from the operating system's random source.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(ready, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }
}

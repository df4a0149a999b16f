internal import CSodium

/// libsodium for the tools: initialised before first use (`sodium_init` may be called by each
/// module that uses the library, any number of times), and its random source.
enum Sodium {
    /// Calls `sodium_init` once; every entry point of the tools into libsodium goes through here first.
    static let ready: Bool = sodium_init() >= 0

    /// `count` bytes from libsodium's random source (the operating system's).
    static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(ready, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }
}

internal import CSodium

/// libsodium, initialised once before first use.
enum Sodium {
    /// Calls `sodium_init` once; every entry point into libsodium goes through here first.
    static let ready: Bool = sodium_init() >= 0
}

import CSodium
import TokenVerifier

/// SHA-256 (libsodium's `crypto_hash_sha256`), as the state file records it: lowercase hex.
struct SHA256Digest {
    private var state = crypto_hash_sha256_state()

    init() { crypto_hash_sha256_init(&state) }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { _ = crypto_hash_sha256_update(&state, $0.baseAddress, UInt64($0.count)) }
    }

    /// The digest as 64 hex digits (the state cannot be updated after).
    mutating func hex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The digest of `bytes`: what the state file records of a file written.
    static func hex(_ bytes: [UInt8]) -> String {
        var digest = SHA256Digest()
        digest.update(bytes)
        return digest.hex()
    }
}

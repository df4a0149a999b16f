internal import CSodium

extension Ed25519 {
    /// Why `publicKey` (32 bytes) cannot verify, in words that name the true reason, or nil when
    /// it is a key libsodium verifies with: canonical, on the curve, not of small order, and in
    /// the prime-order subgroup.
    static func publicKeyProblem(_ publicKey: [UInt8]) -> String? {
        precondition(Sodium.ready && publicKey.count == publicKeyLength)
        if isValidPublicKey(publicKey) { return nil }
        // y (the encoding without its sign bit) must be below p = 2^255 - 19.
        let canonical =
            !(publicKey[0] >= 0xED && publicKey[1..<31].allSatisfy { $0 == 0xFF } && publicKey[31] & 0x7F == 0x7F)
        if !canonical { return "not a canonical point encoding (y is not below 2^255 - 19)" }
        // crypto_core_ed25519_add checks only that its inputs are on the curve.
        var doubled = [UInt8](repeating: 0, count: publicKeyLength)
        guard crypto_core_ed25519_add(&doubled, publicKey, publicKey) == 0 else { return "not a point on the curve" }
        var multiple = doubled
        for _ in 0..<2 {  // 2P -> 4P -> 8P
            var next = [UInt8](repeating: 0, count: publicKeyLength)
            _ = crypto_core_ed25519_add(&next, multiple, multiple)
            multiple = next
        }
        let identity: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)
        if multiple == identity { return "a point of small order" }
        return "not in the prime-order subgroup (the point has a small-order torsion component)"
    }
}

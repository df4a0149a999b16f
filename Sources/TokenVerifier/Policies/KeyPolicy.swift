/// Checks 5 and 6: the `kid` names a configured key, and the token's `alg` fits that key's type
/// and declared `alg`. The algorithm always comes from the key; the header only has to agree.
struct KeyPolicy {
    let keys: KeySet

    /// Returns the index of the key that will verify the token, or nil.
    func check(_ header: TokenHeader, algorithm: SignatureAlgorithm?, _ failures: inout FailureList) -> Int? {
        guard let keyID = header.keyID else { return nil }
        guard let index = keys.index(of: keyID) else {
            failures.add(.unknownKey, "no key with kid \"\(keyID)\" is configured")
            return nil
        }
        let key = keys.keys[index]
        guard let algorithm else { return nil }
        guard key.accepts(algorithm) else {
            let declared = key.algorithm.map { " with alg \($0.rawValue)" } ?? ""
            failures.add(.keyAlgorithmMismatch, "alg \(algorithm.rawValue) does not fit key \"\(keyID)\" (\(key.type.rawValue)\(declared))")
            return nil
        }
        return index
    }
}

/// Checks 5 and 6: the `kid` names a configured key, and the token's `alg` fits that key's type
/// and declared `alg`. The algorithm always comes from the key; the header only has to agree.
struct KeyPolicy {
    let keys: KeySet

    /// Returns the index of the key named by `kid` (nil when there is none) and whether the
    /// token's algorithm fits it.
    func check(_ header: ParsedToken, algorithm: SignatureAlgorithm?, _ failures: inout FailureList) -> (index: Int?, fits: Bool) {
        guard let keyID = header.keyID else { return (nil, false) }
        guard let index = header.withBytes(keyID, keys.index(of:)) else {
            failures.add(.unknownKey, "no key with kid \"\(header.string(keyID))\" is configured")
            return (nil, false)
        }
        guard let algorithm else { return (index, false) }
        guard keys.keys[index].accepts(algorithm) else {
            let key = keys.keys[index]
            let declared = key.algorithm.map { " with alg \($0.rawValue)" } ?? ""
            failures.add(.keyAlgorithmMismatch, "alg \(algorithm.rawValue) does not fit key \"\(key.keyID)\" (\(key.type.rawValue)\(declared))")
            return (index, false)
        }
        return (index, true)
    }
}

/// Check 6 (`key_alg_mismatch`): the token's `alg` fits the key's type and the key's declared
/// `alg`. The algorithm always comes from the key; the header only has to agree with it.
struct KeyAlgorithmPolicy: TokenPolicy {
    func check(_ input: inout CheckInput, _ failures: inout FailureList) {
        guard let index = input.keyIndex, let algorithm = input.algorithm else { return }
        let key = input.state.keys.keys[index]
        guard key.accepts(algorithm) else {
            let declared = key.algorithm.map { " with alg \($0.rawValue)" } ?? ""
            failures.add(.keyAlgorithmMismatch, "alg \(algorithm.rawValue) does not fit key \"\(key.keyID)\" (\(key.type.rawValue)\(declared))")
            return
        }
        input.keyFits = true
    }
}

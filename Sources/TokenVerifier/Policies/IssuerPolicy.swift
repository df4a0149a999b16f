/// Check 8: `iss` equals the key's `iss` and the run's `--issuer`, where they are given.
struct IssuerPolicy {
    let required: String?

    /// `keyIndex`: the key of `keys` named by the token's `kid`, if any.
    func check(_ token: ParsedToken, keys: KeySet, keyIndex: Int?, _ failures: inout FailureList) {
        if let keyIndex, let keyIssuer = keys.keys[keyIndex].issuer, !token.equals(token.issuer, keyIssuer) {
            failures.add(.wrongIssuer, "iss \"\(token.string(token.issuer))\" differs from key \"\(keys.keys[keyIndex].keyID)\"'s issuer \"\(keyIssuer)\"")
        } else if let required, !token.equals(token.issuer, required) {
            failures.add(.wrongIssuer, "iss \"\(token.string(token.issuer))\" differs from the required issuer \"\(required)\"")
        }
    }
}

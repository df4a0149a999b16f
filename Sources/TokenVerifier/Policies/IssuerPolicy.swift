/// Check 8: `iss` equals the key's `iss` and the run's `--issuer`, where they are given.
struct IssuerPolicy {
    let required: String?

    func check(_ token: ParsedToken, key: VerificationKey?, _ failures: inout FailureList) {
        if let keyIssuer = key?.issuer, !token.equals(token.issuer, keyIssuer) {
            failures.add(.wrongIssuer, "iss \"\(token.string(token.issuer))\" differs from key \"\(key!.keyID)\"'s issuer \"\(keyIssuer)\"")
        } else if let required, !token.equals(token.issuer, required) {
            failures.add(.wrongIssuer, "iss \"\(token.string(token.issuer))\" differs from the required issuer \"\(required)\"")
        }
    }
}

/// Check 8: `iss` equals the key's `iss` and the run's `--issuer`, where they are given.
struct IssuerPolicy {
    let required: String?

    func check(_ claims: TokenClaims, key: VerificationKey?, _ failures: inout FailureList) {
        if let keyIssuer = key?.issuer, keyIssuer != claims.issuer {
            failures.add(.wrongIssuer, "iss \"\(claims.issuer)\" differs from key \"\(key!.keyID)\"'s issuer \"\(keyIssuer)\"")
        } else if let required, required != claims.issuer {
            failures.add(.wrongIssuer, "iss \"\(claims.issuer)\" differs from the required issuer \"\(required)\"")
        }
    }
}

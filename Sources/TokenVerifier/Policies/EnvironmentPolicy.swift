/// Check 7: the token's `env`, the key's `env` and the run's `--env` agree wherever they are given.
struct EnvironmentPolicy {
    let required: Environment?

    func check(_ claims: TokenClaims, key: VerificationKey?, _ failures: inout FailureList) {
        let token = claims.environment
        let keyEnvironment = key?.environment
        if let token, let keyEnvironment, token != keyEnvironment {
            failures.add(.wrongEnvironment, "the token is for env \"\(token.rawValue)\" but key \"\(key!.keyID)\" is for \"\(keyEnvironment.rawValue)\"")
        } else if let required, let token, token != required {
            failures.add(.wrongEnvironment, "the token is for env \"\(token.rawValue)\", this run accepts \"\(required.rawValue)\"")
        } else if let required, let keyEnvironment, keyEnvironment != required {
            failures.add(.wrongEnvironment, "key \"\(key!.keyID)\" is for env \"\(keyEnvironment.rawValue)\", this run accepts \"\(required.rawValue)\"")
        }
    }
}

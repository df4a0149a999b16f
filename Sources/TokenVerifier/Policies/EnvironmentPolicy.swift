/// Check 7: the token's `env`, the key's `env` and the run's `--env` agree wherever they are given.
struct EnvironmentPolicy {
    let required: Environment?

    /// `keyIndex`: the key of `keys` named by the token's `kid`, if any.
    func check(_ token: ParsedToken, keys: KeySet, keyIndex: Int?, _ failures: inout FailureList) {
        let tokenEnvironment = token.environment
        let keyEnvironment = keyIndex.flatMap { keys.keys[$0].environment }
        if let tokenEnvironment, let keyEnvironment, tokenEnvironment != keyEnvironment {
            failures.add(.wrongEnvironment, "the token is for env \"\(tokenEnvironment.rawValue)\" but key \"\(keys.keys[keyIndex!].keyID)\" is for \"\(keyEnvironment.rawValue)\"")
        } else if let required, let tokenEnvironment, tokenEnvironment != required {
            failures.add(.wrongEnvironment, "the token is for env \"\(tokenEnvironment.rawValue)\", this run accepts \"\(required.rawValue)\"")
        } else if let required, let keyEnvironment, keyEnvironment != required {
            failures.add(.wrongEnvironment, "key \"\(keys.keys[keyIndex!].keyID)\" is for env \"\(keyEnvironment.rawValue)\", this run accepts \"\(required.rawValue)\"")
        }
    }
}

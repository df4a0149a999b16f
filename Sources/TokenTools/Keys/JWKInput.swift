import TokenVerifier

/// JWKs as other tools write them: one JWK, a JWKS, or JSON lines of JWKs (as `gen` writes
/// signing-keys.jwk). Private JWKs give their public part.
enum JWKInput {
    static func keys(in bytes: [UInt8]) throws(KeyEncodingError) -> [(members: [String: String], material: KeyMaterial)]
    {
        var entries: [JWK] = []
        do {
            entries = try readJWKs(bytes, keySet: true)
        } catch let documentError {
            // JSON lines of JWKs: every non-blank line one object.
            let lines = bytes.split(separator: 0x0A).filter {
                !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            }
            guard lines.count > 1 else { throw KeyEncodingError("not valid JSON: \(documentError.description)") }
            for (number, line) in lines.enumerated() {
                do {
                    entries += try readJWKs(Array(line), keySet: true)
                } catch {
                    throw KeyEncodingError("line \(number + 1): not a JWK: \(error.description)")
                }
            }
        }
        var keys: [(members: [String: String], material: KeyMaterial)] = []
        for (position, entry) in entries.enumerated() {
            let name = entry.strings["kid"].map { "key \"\($0)\"" } ?? "key #\(position + 1)"
            do {
                keys.append(try material(entry))
            } catch {
                throw KeyEncodingError("\(name): \(error.message)")
            }
        }
        return keys
    }

    /// The public key of one JWK and the members kept with it (kid, alg, use, env, iss).
    /// One JWK as read: its string members and the names of its other members.
    typealias JWK = (strings: [String: String], nonStrings: Set<String>)

    private static func material(
        _ jwk: JWK
    ) throws(KeyEncodingError) -> (members: [String: String], material: KeyMaterial) {
        for name in ["kty", "crv", "x", "y", "d", "kid", "alg", "use", "env", "iss"] where jwk.nonStrings.contains(name)
        {
            throw KeyEncodingError("\"\(name)\" must be a string")
        }
        func decoded(_ name: String) throws(KeyEncodingError) -> [UInt8]? {
            guard let text = jwk.strings[name] else { return nil }
            guard let value = Base64URL.decode(Array(text.utf8)) else {
                throw KeyEncodingError("\"\(name)\" is not canonical base64url")
            }
            guard value.count == 32 else {
                throw KeyEncodingError("\"\(name)\" must be 32 bytes, found \(value.count)")
            }
            return value
        }
        guard let kty = jwk.strings["kty"] else { throw KeyEncodingError("\"kty\" is missing: not a JWK") }
        let crv = jwk.strings["crv"] ?? ""
        let material: KeyMaterial
        switch (kty, crv) {
        case ("OKP", "Ed25519"):
            if let seed = try decoded("d") {
                let publicKey = Ed25519Signing.publicKey(seed: seed)
                if let x = try decoded("x"), x != publicKey {
                    throw KeyEncodingError("\"x\" does not match the private key \"d\"")
                }
                material = KeyMaterial(type: .ed25519, publicKey: publicKey, fromPrivateKey: true)
            } else {
                guard let x = try decoded("x") else { throw KeyEncodingError("\"x\" is missing") }
                material = KeyMaterial(type: .ed25519, publicKey: x, fromPrivateKey: false)
            }
        case ("EC", "P-256"):
            if let d = try decoded("d") {
                guard let key = P256PrivateKey(d: d) else {
                    throw KeyEncodingError("\"d\" is not a valid P-256 scalar")
                }
                if let x = try decoded("x"), x != key.x {
                    throw KeyEncodingError("\"x\" does not match the private key \"d\"")
                }
                if let y = try decoded("y"), y != key.y {
                    throw KeyEncodingError("\"y\" does not match the private key \"d\"")
                }
                material = KeyMaterial(type: .p256, publicKey: key.x + key.y, fromPrivateKey: true)
            } else {
                guard let x = try decoded("x") else { throw KeyEncodingError("\"x\" is missing") }
                guard let y = try decoded("y") else { throw KeyEncodingError("\"y\" is missing") }
                material = KeyMaterial(type: .p256, publicKey: x + y, fromPrivateKey: false)
            }
        case ("oct", _):
            throw KeyEncodingError(
                "a symmetric key (kty \"oct\"); only Ed25519 and P-256 public keys verify these tokens")
        case ("OKP", _), ("EC", _):
            throw KeyEncodingError("unsupported curve \"\(crv)\" for kty \"\(kty)\" (supported: OKP/Ed25519, EC/P-256)")
        default:
            throw KeyEncodingError("unsupported key type \"\(kty)\" (supported: OKP/Ed25519, EC/P-256)")
        }
        var members: [String: String] = [:]
        for name in ["kid", "alg", "use", "env", "iss"] { members[name] = jwk.strings[name] }
        return (members, material)
    }
}

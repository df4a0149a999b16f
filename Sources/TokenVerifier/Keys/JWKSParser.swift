/// Reads a JWKS document (RFC 7517) strictly, per spec §3.
enum JWKSParser {
    struct Loaded {
        var keys: [VerificationKey]
        var warnings: [String]
    }

    static func parse(_ bytes: [UInt8], file: String) throws(KeySetError) -> Loaded {
        // First the JSON, then each key: a JSON error names the file, a key error names the key.
        var entries: [JWKMembers]? = nil
        var sawKeyType = false
        // A UTF-8 byte order mark is accepted, as in verify's input.
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        do {
            try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in
                var reader = JSONReader(buffer)
                entries = try JWKMembers.keySetEntries(&reader) { if $0.equals("kty") { sawKeyType = true } }
                try reader.finish()
            }
        } catch {
            if bytes.drop(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }).starts(
                with: Array("-----BEGIN".utf8)) || bytes.first == 0x30
            {
                throw KeySetError(
                    file: file, keyID: nil,
                    message: "a PEM or DER key, not a JWKS key set: run `tokenverify keys import \(file)` to write one")
            }
            throw KeySetError(file: file, keyID: nil, message: "not a valid JWKS document: \(error.description)")
        }
        guard let entries else {
            if sawKeyType {
                throw KeySetError(
                    file: file, keyID: nil,
                    message:
                        "this is one JWK, not a key set: wrap it as {\"keys\":[…]}, or run `tokenverify keys import \(file)` to write a key set"
                )
            }
            throw KeySetError(
                file: file, keyID: nil,
                message:
                    "not a JWKS document: no \"keys\" member (`tokenverify keys import` reads PEM, DER and JWK files)")
        }
        var loaded = Loaded(keys: [], warnings: [])
        for (index, entry) in entries.enumerated() {
            let (key, warning) = try entry.verificationKey(file: file, position: index + 1)
            loaded.keys.append(key)
            if let warning { loaded.warnings.append(warning) }
        }
        return loaded
    }
}

/// The members of one JWK, as read.
package struct JWKMembers {
    package var strings: [String: String] = [:]
    package var nonStrings: Set<String> = []

    /// The entries of the JWKS object at `reader` (its `keys` array, each entry a JWK), or nil when
    /// the object has no `keys` member; `otherMember` sees the name of every other member.
    package static func keySetEntries(
        _ reader: inout JSONReader, otherMember: (MemberName) -> Void = { _ in }
    ) throws(JSONError) -> [JWKMembers]? {
        var entries: [JWKMembers]? = nil
        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            guard name.equals("keys") else {
                otherMember(name)
                try reader.skipValue()
                return
            }
            guard reader.peekKind() == .array else {
                throw JSONError("\"keys\" must be an array", at: reader.position)
            }
            var list = entries ?? []
            try reader.readArray { (reader: inout JSONReader) throws(JSONError) in
                list.append(try JWKMembers(&reader))
            }
            entries = list
        }
        return entries
    }

    package init(_ reader: inout JSONReader) throws(JSONError) {
        guard reader.peekKind() == .object else {
            throw JSONError("each entry of \"keys\" must be an object", at: reader.position)
        }
        var strings: [String: String] = [:]
        var nonStrings: Set<String> = []
        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            if reader.peekKind() == .string {
                strings[name.string] = try reader.readString()
            } else {
                nonStrings.insert(name.string)
                try reader.skipValue()
            }
        }
        self.strings = strings
        self.nonStrings = nonStrings
    }

    private func string(_ name: String, required: Bool, _ fail: (String) -> KeySetError) throws(KeySetError) -> String?
    {
        if nonStrings.contains(name) { throw fail("\"\(name)\" must be a string") }
        if required && strings[name] == nil { throw fail("\"\(name)\" is missing") }
        return strings[name]
    }

    private func coordinate(_ name: String, _ fail: (String) -> KeySetError) throws(KeySetError) -> [UInt8] {
        let text = try string(name, required: true, fail)!
        guard let bytes = Base64URL.decode(Array(text.utf8)) else {
            throw fail("\"\(name)\" is not canonical base64url")
        }
        guard bytes.count == 32 else { throw fail("\"\(name)\" must be 32 bytes, found \(bytes.count)") }
        return bytes
    }

    func verificationKey(file: String, position: Int) throws(KeySetError) -> (VerificationKey, String?) {
        let kid = strings["kid"]
        func fail(_ message: String) -> KeySetError {
            KeySetError(file: file, keyID: kid, message: kid == nil ? "key #\(position): \(message)" : message)
        }
        if strings["kid"] == nil && !nonStrings.contains("kid") {
            throw fail(
                "\"kid\" is missing: give every key a kid, or let `tokenverify keys import FILE` write the key set with RFC 7638 thumbprints as kids"
            )
        }
        guard let keyID = try string("kid", required: true, fail), !keyID.isEmpty else {
            throw fail("\"kid\" must not be empty")
        }
        let kty = try string("kty", required: true, fail)!
        if let use = try string("use", required: false, fail), use != "sig" {
            throw fail("\"use\" is \"\(use)\"; only signature keys (\"sig\") can verify tokens")
        }
        let environment: Environment?
        if let env = try string("env", required: false, fail) {
            guard let parsed = Environment(rawValue: env) else {
                throw fail("\"env\" must be \"int\" or \"prod\", found \"\(env)\"")
            }
            environment = parsed
        } else {
            environment = nil
        }
        let issuer = try string("iss", required: false, fail)
        let declaredAlgorithm = try string("alg", required: false, fail)
        guard kty == "OKP" || kty == "EC" else {
            throw fail("unsupported key type \"\(kty)\" (supported: OKP/Ed25519, EC/P-256)")
        }
        let crv = try string("crv", required: true, fail)!

        let type: KeyType
        var publicKey: [UInt8]
        var p256: P256PublicKey? = nil
        var ed25519: Ed25519PublicKey? = nil
        switch (kty, crv) {
        case ("OKP", "Ed25519"):
            type = .ed25519
            let x = try string("x", required: true, fail)!
            guard let bytes = Base64URL.decode(Array(x.utf8)) else { throw fail("\"x\" is not canonical base64url") }
            guard bytes.count == 32 else { throw fail("\"x\" must be 32 bytes for Ed25519, found \(bytes.count)") }
            if let problem = Ed25519.publicKeyProblem(bytes) {
                throw fail("\"x\" is not a valid Ed25519 public key: \(problem)")
            }
            publicKey = bytes
            ed25519 = Ed25519PublicKey(bytes)
        // A "y" member means nothing for an OKP key and, like other unknown members, is ignored.
        case ("EC", "P-256"):
            type = .p256
            let x = try coordinate("x", fail)
            let y = try coordinate("y", fail)
            guard let key = P256PublicKey(x: x, y: y) else { throw fail("(x, y) is not a point on P-256") }
            p256 = key
            publicKey = x + y
        default:
            throw fail("unsupported curve \"\(crv)\" for kty \"\(kty)\" (supported: OKP/Ed25519, EC/P-256)")
        }

        var algorithm: SignatureAlgorithm? = nil
        if let declaredAlgorithm {
            guard let parsed = SignatureAlgorithm(rawValue: declaredAlgorithm), parsed.keyType == type else {
                throw fail("\"alg\" \"\(declaredAlgorithm)\" does not fit a \(type.rawValue) key")
            }
            algorithm = parsed
        }
        var warning: String? = nil
        if strings["d"] != nil || nonStrings.contains("d") {
            warning =
                "\(file): key \"\(keyID)\": holds a private member \"d\"; only the public part is used (keep private keys out of key sets)"
        }
        let key = VerificationKey(
            keyID: keyID, type: type, algorithm: algorithm, environment: environment, issuer: issuer,
            publicKeyBytes: publicKey, p256: p256, ed25519: ed25519)
        return (key, warning)
    }
}

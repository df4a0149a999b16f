import TokenFormats
import TokenVerifier

/// What `tokenverify keys import` sets on every key it writes.
package struct KeyImportOptions: Sendable {
    /// The `kid` of the one key read (nil: the key's own `kid`, else its RFC 7638 thumbprint).
    package var keyID: String?
    /// `env` for every key.
    package var environment: Environment?
    /// `iss` for every key.
    package var issuer: String?
    /// `alg` for every key (it must fit the key's type).
    package var algorithm: SignatureAlgorithm?

    package init(
        keyID: String? = nil, environment: Environment? = nil, issuer: String? = nil,
        algorithm: SignatureAlgorithm? = nil
    ) {
        self.keyID = keyID
        self.environment = environment
        self.issuer = issuer
        self.algorithm = algorithm
    }
}

/// Reads public keys in the forms other tools write them (PEM SPKI as `openssl pkey -pubout`
/// writes, PEM private keys, DER, a bare JWK, a JWKS, JSON lines of JWKs) and turns them into
/// one JWKS that `verify --keys` accepts, checked by the same rules (spec §3).
package enum KeyImporter {
    /// The result: the JWKS text (ending in a newline), its keys and warnings for stderr.
    package struct Imported: Sendable {
        package var jwks: String
        package var keys: [VerificationKey]
        package var warnings: [String]
    }

    /// Imports the keys of `files` (name and bytes, in order).
    package static func importKeys(
        _ files: [(file: String, bytes: [UInt8])], options: KeyImportOptions = KeyImportOptions()
    ) throws(KeySetError) -> Imported {
        var read: [(file: String, position: Int, members: [String: String], material: KeyMaterial)] = []
        for (file, bytes) in files {
            let found: [(members: [String: String], material: KeyMaterial)]
            do {
                found = try keys(in: bytes)
            } catch {
                throw KeySetError(file: file, keyID: nil, message: error.message)
            }
            if found.isEmpty { throw KeySetError(file: file, keyID: nil, message: "holds no key") }
            for (position, key) in found.enumerated() { read.append((file, position + 1, key.members, key.material)) }
        }
        if options.keyID != nil, read.count != 1 {
            throw KeySetError(
                file: nil, keyID: nil,
                message:
                    "--kid names one key, but \(counted(read.count, "key were", "keys were")) read; leave --kid out to keep each key's kid or its thumbprint"
            )
        }
        var jwks: [String] = []
        var keys: [VerificationKey] = []
        var warnings: [String] = []
        var origin: [String: String] = [:]
        for key in read {
            let thumbprint = jwkThumbprint(type: key.material.type, publicKeyBytes: key.material.publicKey)
            let keyID = options.keyID ?? key.members["kid"] ?? thumbprint
            var members = key.members
            members["kid"] = keyID
            if let environment = options.environment { members["env"] = environment.rawValue }
            if let issuer = options.issuer { members["iss"] = issuer }
            if let algorithm = options.algorithm { members["alg"] = algorithm.rawValue }
            let jwk = Self.jwk(material: key.material, members: members)
            // The same checks as `verify --keys`, so that what is written is what verify accepts.
            let (loaded, _) = try KeySet.parse(Array("{\"keys\":[\(jwk)]}".utf8), file: key.file)
            if let first = origin[keyID] {
                let same = first == key.file ? "twice in this file" : "also in \(first)"
                throw KeySetError(
                    file: key.file, keyID: keyID,
                    message: "duplicate kid (\(same)); give each key its own kid (with --kid for a single key)")
            }
            origin[keyID] = key.file
            if key.material.fromPrivateKey {
                warnings.append(
                    "\(key.file): key \"\(keyID)\": a private key; only its public part is imported (keep private keys out of key sets)"
                )
            }
            jwks.append(jwk)
            keys += loaded.keys
        }
        let text = "{\"keys\":[\n" + jwks.joined(separator: ",\n") + "\n]}\n"
        return Imported(jwks: text, keys: keys, warnings: warnings)
    }

    /// The public JWK text: key members first, then the extension members tokenverify reads.
    private static func jwk(material: KeyMaterial, members: [String: String]) -> String {
        var writer = JSONWriter()
        switch material.type {
        case .ed25519:
            writer.raw("{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":")
            writer.string(Base64URL.encodeString(material.publicKey))
        case .p256:
            writer.raw("{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":")
            writer.string(Base64URL.encodeString(material.publicKey[0..<32]))
            writer.raw(",\"y\":")
            writer.string(Base64URL.encodeString(material.publicKey[32..<64]))
        }
        for name in ["kid", "alg", "use", "env", "iss"] {
            guard let value = members[name] else { continue }
            writer.raw(",")
            writer.key(name)
            writer.string(value)
        }
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The keys of one file in whichever form it has.
    static func keys(in file: [UInt8]) throws(KeyEncodingError) -> [(members: [String: String], material: KeyMaterial)]
    {
        var bytes = file[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if text.starts(with: Array("-----BEGIN".utf8)) {
            var found: [(members: [String: String], material: KeyMaterial)] = []
            for block in try PEM.blocks(Array(text)) {
                switch block.label {
                case "PUBLIC KEY", "PRIVATE KEY", "EC PRIVATE KEY":
                    do {
                        found.append(([:], try DERKey.read(block.der)))
                    } catch {
                        throw KeyEncodingError("PEM \"\(block.label)\": \(error.message)")
                    }
                case "EC PARAMETERS":
                    continue  // `openssl ecparam -genkey` writes these before the key
                case "ENCRYPTED PRIVATE KEY":
                    throw KeyEncodingError(
                        "an encrypted private key; export its public key with `openssl pkey -in FILE -pubout` and import that"
                    )
                case "CERTIFICATE":
                    throw KeyEncodingError(
                        "a certificate, not a key; extract its public key with `openssl x509 -in FILE -pubkey -noout` and import that"
                    )
                default:
                    throw KeyEncodingError(
                        "a PEM \"\(block.label)\" block; expected \"PUBLIC KEY\" (as `openssl pkey -pubout` writes) or a private key"
                    )
                }
            }
            return found
        }
        if text.first == UInt8(ascii: "{") { return try JWKInput.keys(in: Array(text)) }
        if bytes.first == 0x30 {
            do {
                return [([:], try DERKey.read(Array(bytes)))]
            } catch {
                throw KeyEncodingError("DER: \(error.message)")
            }
        }
        throw KeyEncodingError("not a key file: expected PEM (-----BEGIN PUBLIC KEY-----), DER, a JWK or a JWKS")
    }
}

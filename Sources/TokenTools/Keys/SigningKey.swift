import TokenFormats
import TokenVerifier

/// A private key that signs tokens: for `keygen`, `sign`, `gen` and tests. Verification never
/// needs one.
public final class SigningKey: Sendable {
    /// `kid`, written into every token's header.
    public let keyID: String
    /// The header `alg` this key signs with (`Ed25519`, `EdDSA` or `ES256`).
    public let algorithm: SignatureAlgorithm
    /// The key's `env` member, if any.
    public let environment: Environment?
    /// The key's `iss` member, if any.
    public let issuer: String?
    let material: Material

    enum Material: Sendable {
        case ed25519(seed: [UInt8], secretKey: [UInt8], publicKey: [UInt8])
        case p256(P256PrivateKey)
    }

    /// Why a private JWK cannot be used.
    public struct InvalidKey: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    private init(
        keyID: String, algorithm: SignatureAlgorithm, environment: Environment?, issuer: String?, material: Material
    ) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.environment = environment
        self.issuer = issuer
        self.material = material
    }

    /// A new random key.
    public static func generate(
        algorithm: SignatureAlgorithm, keyID: String, environment: Environment? = nil, issuer: String? = nil
    ) -> SigningKey {
        try! derive(
            algorithm: algorithm, keyID: keyID, secret: Sodium.randomBytes(32), environment: environment, issuer: issuer
        )
    }

    /// A key derived from 32 secret bytes (reproducible: the same bytes give the same key).
    /// For ES256 the bytes are hashed until they form a valid scalar.
    public static func derive(
        algorithm: SignatureAlgorithm, keyID: String, secret: [UInt8], environment: Environment? = nil,
        issuer: String? = nil
    ) throws(InvalidKey) -> SigningKey {
        guard secret.count == 32 else { throw InvalidKey(description: "a key needs 32 secret bytes") }
        switch algorithm.keyType {
        case .ed25519:
            let expanded = Ed25519Signing.expandedSecretKey(seed: secret)
            return SigningKey(
                keyID: keyID, algorithm: algorithm, environment: environment, issuer: issuer,
                material: .ed25519(seed: secret, secretKey: expanded.secretKey, publicKey: expanded.publicKey))
        case .p256:
            var scalar = secret
            while !P256PrivateKey.isValidScalar(scalar) { scalar = Ed25519Signing.publicKey(seed: scalar) }
            guard let key = P256PrivateKey(d: scalar) else { throw InvalidKey(description: "not a valid P-256 scalar") }
            return SigningKey(
                keyID: keyID, algorithm: algorithm, environment: environment, issuer: issuer, material: .p256(key))
        }
    }

    /// Reads a private JWK (`d` required): OKP/Ed25519 or EC/P-256. The header `alg` is the key's
    /// `alg`, else `Ed25519` or `ES256`.
    public static func parse(jwk: some Collection<UInt8>) throws(InvalidKey) -> SigningKey {
        let bytes = Array(jwk)
        let members: [String: String]
        do {
            members = try readJWKs(bytes, keySet: false)[0].strings
        } catch {
            throw InvalidKey(description: "not a JSON object: \(error.description)")
        }
        func decoded(_ name: String) throws(InvalidKey) -> [UInt8] {
            guard let text = members[name] else { throw InvalidKey(description: "\"\(name)\" is missing") }
            guard let value = Base64URL.decode(Array(text.utf8)), value.count == 32 else {
                throw InvalidKey(description: "\"\(name)\" must be 32 bytes of canonical base64url")
            }
            return value
        }
        guard let keyID = members["kid"], !keyID.isEmpty else { throw InvalidKey(description: "\"kid\" is missing") }
        var environment: Environment? = nil
        if let env = members["env"] {
            guard let parsed = Environment(rawValue: env) else {
                throw InvalidKey(description: "\"env\" must be \"int\" or \"prod\"")
            }
            environment = parsed
        }
        let declared = members["alg"].flatMap(SignatureAlgorithm.init(rawValue:))
        switch (members["kty"], members["crv"]) {
        case ("OKP", "Ed25519"):
            let seed = try decoded("d")
            let (secretKey, publicKey) = Ed25519Signing.expandedSecretKey(seed: seed)
            if let x = members["x"], Base64URL.decode(Array(x.utf8)) != publicKey {
                throw InvalidKey(description: "\"x\" does not match \"d\"")
            }
            let algorithm = declared.flatMap { $0.keyType == .ed25519 ? $0 : nil } ?? .ed25519
            return SigningKey(
                keyID: keyID, algorithm: algorithm, environment: environment, issuer: members["iss"],
                material: .ed25519(seed: seed, secretKey: secretKey, publicKey: publicKey))
        case ("EC", "P-256"):
            guard let key = P256PrivateKey(d: try decoded("d")) else {
                throw InvalidKey(description: "\"d\" is not a valid P-256 scalar")
            }
            if let x = members["x"], Base64URL.decode(Array(x.utf8)) != key.x {
                throw InvalidKey(description: "\"x\" does not match \"d\"")
            }
            if let y = members["y"], Base64URL.decode(Array(y.utf8)) != key.y {
                throw InvalidKey(description: "\"y\" does not match \"d\"")
            }
            return SigningKey(
                keyID: keyID, algorithm: .es256, environment: environment, issuer: members["iss"], material: .p256(key))
        default:
            throw InvalidKey(description: "unsupported key (supported: OKP/Ed25519, EC/P-256 with \"d\")")
        }
    }

    /// The public JWK, for a key set.
    public var publicJWK: String { jwk(includePrivate: false) }

    /// The private JWK, for signing.
    public var privateJWK: String { jwk(includePrivate: true) }

    private func jwk(includePrivate: Bool) -> String {
        var writer = JSONWriter()
        writer.raw("{")
        switch material {
        case .ed25519(let seed, _, let publicKey):
            writer.raw("\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":")
            writer.string(Base64URL.encodeString(publicKey))
            if includePrivate {
                writer.raw(",\"d\":")
                writer.string(Base64URL.encodeString(seed))
            }
        case .p256(let key):
            writer.raw("\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":")
            writer.string(Base64URL.encodeString(key.x))
            writer.raw(",\"y\":")
            writer.string(Base64URL.encodeString(key.y))
            if includePrivate {
                writer.raw(",\"d\":")
                writer.string(Base64URL.encodeString(key.d))
            }
        }
        writer.raw(",\"kid\":")
        writer.string(keyID)
        writer.raw(",\"alg\":")
        writer.string(algorithm.rawValue)
        writer.raw(",\"use\":\"sig\"")
        if let environment {
            writer.raw(",\"env\":")
            writer.string(environment.rawValue)
        }
        if let issuer {
            writer.raw(",\"iss\":")
            writer.string(issuer)
        }
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The raw signature of `message`.
    public func signature(of message: [UInt8]) -> [UInt8] {
        switch material {
        case .ed25519(_, let secretKey, _): Ed25519Signing.sign(message, secretKey: secretKey)
        case .p256(let key): key.sign(message)
        }
    }

    /// A compact token over `claims` (JSON object bytes, used as they are) with the header
    /// `{"alg":…,"kid":…,"typ":"JWT"}`.
    public func sign(claims: [UInt8]) -> String {
        sign(header: standardHeader, claims: claims)
    }

    /// The header bytes `{"alg":…,"kid":…,"typ":"JWT"}` of this key's tokens.
    var standardHeader: [UInt8] {
        var header = JSONWriter()
        header.raw("{\"alg\":")
        header.string(algorithm.rawValue)
        header.raw(",\"kid\":")
        header.string(keyID)
        header.raw(",\"typ\":\"JWT\"}")
        return header.bytes
    }

    /// A compact token with the given header and claims bytes, used as they are (tests use this
    /// to build tokens with odd headers).
    public func sign(header: [UInt8], claims: [UInt8]) -> String {
        var input = header.withUnsafeBufferPointer { Base64URL.encode($0) }
        input.append(UInt8(ascii: "."))
        input += claims.withUnsafeBufferPointer { Base64URL.encode($0) }
        let signature = signature(of: input)
        input.append(UInt8(ascii: "."))
        input += signature.withUnsafeBufferPointer { Base64URL.encode($0) }
        return String(decoding: input, as: UTF8.self)
    }
}

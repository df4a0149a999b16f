import TokenVerifier

/// Makes CWTs (spec §2b): COSE_Sign1 messages under tag 18 whose protected header is
/// `{1: alg, 4: h'kid'}` (alg −19 for an Ed25519 key, −8 for an EdDSA one, −7 for ES256), or
/// with a chain `{1: alg, 33: x5chain}` (``TokenChain``), and whose payload is the claims as a CBOR map, written as base64url. Signatures are deterministic
/// (Ed25519 by design, ES256 with RFC 6979 nonces), so the same key and claims give the same CWT.
public struct CWTSigner: Sendable {
    /// The key this signer uses.
    public let key: SigningKey
    /// The certificate chain the protected header carries in place of the `kid`, if any.
    public let chain: TokenChain?

    public init(key: SigningKey, chain: TokenChain? = nil) {
        self.key = key
        self.chain = chain
    }

    /// The COSE algorithm of a key's algorithm.
    static func coseAlgorithm(_ algorithm: SignatureAlgorithm) -> Int64 {
        switch algorithm {
        case .ed25519: -19
        case .edDSA: -8
        case .es256: -7
        }
    }

    /// The protected header `{1: alg, 4: h'kid'}` (with a chain `{1: alg, 33: x5chain}`), encoded.
    public var protectedHeader: [UInt8] {
        if let chain { return chain.coseProtectedHeader(algorithm: Self.coseAlgorithm(key.algorithm)) }
        return CWTWriter.protectedHeader(algorithm: Self.coseAlgorithm(key.algorithm), keyID: key.keyID)
    }

    /// A CWT over `claims`, a JSON object whose claim names are mapped to their CWT keys
    /// (``claimsCBOR(json:)``).
    public func sign(claims json: [UInt8]) throws(JSONError) -> String {
        String(decoding: Base64URL.encode(sign(payload: try Self.claimsCBOR(json: json))), as: UTF8.self)
    }

    /// The CBOR of a COSE_Sign1 message (under tag 18) over `payload` with `protected` as its
    /// protected header (default: ``protectedHeader``) and `unprotected` (CBOR map bytes) as its
    /// unprotected one. With `presentedPayload`, the signature is still made over `payload` but
    /// the message carries `presentedPayload` (a tampered token, for test sets).
    public func sign(
        payload: [UInt8], protected: [UInt8]? = nil, unprotected: [UInt8] = [0xA0],
        presentedPayload: [UInt8]? = nil
    ) -> [UInt8] {
        let protected = protected ?? protectedHeader
        return CWTWriter.signedMessage(
            protected: protected, unprotected: unprotected, payload: payload,
            presentedPayload: presentedPayload ?? payload, sign: signature(of:))
    }

    /// The signature of `message`, deterministic for both algorithms.
    func deterministicSignature(of message: [UInt8]) -> [UInt8] {
        signature(of: message)
    }

    /// The signature of `message`, deterministic for both algorithms.
    private func signature(of message: [UInt8]) -> [UInt8] {
        if case .p256(let privateKey) = key.material,
            let signed = TokenSigner.deterministicES256(message, privateScalar: privateKey.d)
        {
            return signed.signature
        }
        return key.signature(of: message)
    }

    /// The CWT claims map of a JSON claims object: `iss`, `sub`, `aud`, `exp`, `nbf`, `iat` and
    /// `jti` become the keys 1–7 (`jti` as a text `cti`) and `status` 65535 (with text keys
    /// inside); other names stay text keys.
    public static func claimsCBOR(json: [UInt8]) throws(JSONError) -> [UInt8] {
        try cwtClaims(json: json)
    }
}

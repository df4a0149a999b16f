/// One revocation (spec §4): what it selects, and the optional limits on what and when.
public struct RevocationEntry: Sendable, Equatable {
    /// What a revocation selects.
    public enum Selector: Sendable, Equatable {
        /// `{"jti":J}`: that token.
        case token(String)
        /// `{"sub":S}`: every token of device S.
        case device(String)
        /// `{"aud":A}`: every token for object A.
        case object(String)
        /// `{"sub":S,"aud":A}`: device S's tokens for object A.
        case grant(device: String, object: String)
        /// `{"kid":K}`: every token signed with key K.
        case key(String)
        /// `{"x5t#S256":T}`: every token whose chain holds the certificate of that thumbprint
        /// (base64url SHA-256 of its DER, spec §3b): `revoked_key`.
        case certificate(String)
        /// `{"spki#S256":T}`: every token (and status list) signed with the key of that thumbprint
        /// (base64url SHA-256 of its SubjectPublicKeyInfo DER), whether a key set holds it or a
        /// certificate of a chain does, leaf or CA: `revoked_key`. A key cannot be re-encoded.
        case keyThumbprint(String)
    }

    public var selector: Selector
    /// `issued_before`: only tokens whose `iat` is earlier (a token without `iat` is affected).
    public var issuedBefore: Double?
    /// `since`: the revocation holds for checks at this time or later.
    public var since: Double?

    public init(_ selector: Selector, issuedBefore: Double? = nil, since: Double? = nil) {
        self.selector = selector
        self.issuedBefore = issuedBefore
        self.since = since
    }
}

/// A revocation file that cannot be loaded.
public struct RevocationListError: Error, CustomStringConvertible, Sendable {
    public var file: String
    /// 1-based line number, when the problem is on a line.
    public var line: Int?
    public var message: String

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}

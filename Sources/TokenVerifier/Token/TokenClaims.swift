/// The claims of a token (spec §2), with every type already checked.
public struct TokenClaims: Sendable, Equatable {
    /// `iss`: the operator.
    public var issuer: String
    /// `sub`: the device.
    public var subject: String
    /// `aud`: the objects (vehicles, lock servers); never empty.
    public var audience: [String]
    /// Whether `aud` was written as an array (rather than a single string).
    public var audienceIsArray: Bool
    /// `jti`: the token id.
    public var tokenID: String
    /// `exp`, a NumericDate.
    public var expiresAt: Double
    /// `nbf`, a NumericDate.
    public var notBefore: Double?
    /// `iat`, a NumericDate.
    public var issuedAt: Double?
    /// `env`.
    public var environment: Environment?
    /// `ch`: permitted channels; never empty.
    public var channels: [String]
    /// `cmd`: permitted commands; never empty.
    public var commands: [String]
    /// `role`.
    public var role: String?
}

/// The claims of a token (SPEC §2), with every type already checked.
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

extension TokenClaims {
    /// Reads and type-checks a claims object. Throws for bad JSON, duplicate members, a missing
    /// required claim or a claim of the wrong type.
    init(json bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        var issuer: String?, subject: String?, tokenID: String?, role: String?
        var audience: [String]?, channels: [String]?, commands: [String]?
        var audienceIsArray = false
        var expiresAt: Double?, notBefore: Double?, issuedAt: Double?
        var environment: Environment?
        var reader = JSONReader(bytes)

        func string(_ reader: inout JSONReader, _ claim: StaticString) throws(JSONError) -> String {
            try reader.readString(member: "claim \"\(claim)\"")
        }
        func numericDate(_ reader: inout JSONReader, _ claim: StaticString) throws(JSONError) -> Double {
            try reader.readNumericDate(member: "claim \"\(claim)\"", allowRFC3339: false)
        }
        func strings(_ reader: inout JSONReader, _ claim: StaticString) throws(JSONError) -> [String] {
            let offset = reader.position
            do {
                return try reader.readStringArray()
            } catch {
                if error.description.hasPrefix("expected") {
                    throw JSONError("claim \"\(claim)\" must be a non-empty array of strings", at: offset)
                }
                throw error
            }
        }

        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            switch name.decoded?.count ?? name.raw.count {
            case 2 where name.equals("ch"): channels = try strings(&reader, "ch")
            case 3 where name.equals("iss"): issuer = try string(&reader, "iss")
            case 3 where name.equals("sub"): subject = try string(&reader, "sub")
            case 3 where name.equals("jti"): tokenID = try string(&reader, "jti")
            case 3 where name.equals("exp"): expiresAt = try numericDate(&reader, "exp")
            case 3 where name.equals("nbf"): notBefore = try numericDate(&reader, "nbf")
            case 3 where name.equals("iat"): issuedAt = try numericDate(&reader, "iat")
            case 3 where name.equals("cmd"): commands = try strings(&reader, "cmd")
            case 3 where name.equals("env"):
                let offset = reader.position
                let value = try string(&reader, "env")
                guard let parsed = Environment(rawValue: value) else {
                    throw JSONError("claim \"env\" must be \"int\" or \"prod\"", at: offset)
                }
                environment = parsed
            case 3 where name.equals("aud"):
                switch reader.peekKind() {
                case .string:
                    audience = [try reader.readString()]
                case .array:
                    audienceIsArray = true
                    audience = try strings(&reader, "aud")
                default:
                    throw JSONError("claim \"aud\" must be a string or a non-empty array of strings", at: reader.position)
                }
            case 4 where name.equals("role"): role = try string(&reader, "role")
            default:
                try reader.skipValue()
            }
        }
        try reader.finish()

        guard let issuer else { throw JSONError("required claim \"iss\" is missing", at: 0) }
        guard let subject else { throw JSONError("required claim \"sub\" is missing", at: 0) }
        guard let audience else { throw JSONError("required claim \"aud\" is missing", at: 0) }
        guard let tokenID else { throw JSONError("required claim \"jti\" is missing", at: 0) }
        guard let expiresAt else { throw JSONError("required claim \"exp\" is missing", at: 0) }
        guard let channels else { throw JSONError("required claim \"ch\" is missing", at: 0) }
        guard let commands else { throw JSONError("required claim \"cmd\" is missing", at: 0) }
        self.init(
            issuer: issuer, subject: subject, audience: audience, audienceIsArray: audienceIsArray,
            tokenID: tokenID, expiresAt: expiresAt, notBefore: notBefore, issuedAt: issuedAt,
            environment: environment, channels: channels, commands: commands, role: role)
    }
}

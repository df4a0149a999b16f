/// The verdict on one token: valid, or the failures found (the first is the reason).
public struct VerificationResult: Sendable {
    /// Every failed check, in check order; empty when the token is valid. Without audit mode it
    /// holds at most one failure.
    public var failures: [VerificationFailure]
    /// The token as parsed, when it could be (check 2 passed).
    @usableFromInline var parsed: ParsedToken?
    /// Whether the token's key came from its certificate chain (spec §3b), not from the key set
    /// by `kid`: a valid answer then names the leaf (``chainLeafThumbprint``) in place of the
    /// `kid`. One byte: nothing per copy of a verdict.
    public var isVerifiedByChain = false

    /// The leaf certificate's `x5t#S256` (base64url SHA-256 of its DER) when the token was
    /// verified by its chain, read from the token's own chain (the first certificate it carries
    /// is the leaf it was verified with): made only when asked, for the answer.
    public var chainLeafThumbprint: String? {
        guard isVerifiedByChain, let parsed, let chain = parsed.chain else { return nil }
        let leaf = parsed.withBytes(chain) { ChainItems.decode($0, format: parsed.format) }
        guard case .success(let certificates) = leaf, let first = certificates.first else { return nil }
        return Base64URL.encodeString(sha256(first))
    }

    /// Whether every check passed.
    @inlinable public var isValid: Bool { failures.isEmpty }

    /// The first failure's reason.
    public var reason: Reason? { failures.first?.reason }

    /// The first failure's detail.
    public var detail: String? { failures.first?.detail }

    /// The header, when the token could be parsed.
    public var header: TokenHeader? { parsed.map(TokenHeader.init) }

    /// The claims, when the token could be parsed.
    public var claims: TokenClaims? { parsed.map(TokenClaims.init) }

    /// JWS or CWT, when the token could be parsed.
    @inlinable public var format: TokenFormat? { parsed?.format }

    /// The entry of a status list the token names (spec §4c), when it names one.
    public var statusListEntry: (uri: String, index: UInt64)? {
        guard let parsed, let status = parsed.status else { return nil }
        return (parsed.string(status.uri), status.index)
    }

    /// Whether the token names an entry of a status list.
    public var namesStatusListEntry: Bool { parsed?.status != nil }

    public init(failures: [VerificationFailure]) {
        self.failures = failures
    }

    init(failures: [VerificationFailure], parsed: ParsedToken?, isVerifiedByChain: Bool = false) {
        self.failures = failures
        self.parsed = parsed
        self.isVerifiedByChain = isVerifiedByChain
    }
}

/// Collects failures; outside audit mode it says stop after the first.
struct FailureList {
    private(set) var failures: [VerificationFailure] = []
    let audit: Bool

    init(audit: Bool) { self.audit = audit }

    /// True once a failure is recorded and the run is not an audit.
    @inline(__always)
    var isDone: Bool { !audit && !failures.isEmpty }

    @inline(__always)
    mutating func add(_ reason: Reason, _ detail: @autoclosure () -> String) {
        failures.append(VerificationFailure(reason, detail()))
    }
}

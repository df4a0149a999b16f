/// The verdict on one token: valid, or the failures found (the first is the reason).
public struct VerificationResult: Sendable {
    /// Every failed check, in check order; empty when the token is valid. Without audit mode it
    /// holds at most one failure.
    public var failures: [VerificationFailure]
    /// The header, when the token could be parsed.
    public var header: TokenHeader?
    /// The claims, when the token could be parsed.
    public var claims: TokenClaims?

    /// Whether every check passed.
    public var isValid: Bool { failures.isEmpty }

    /// The first failure's reason.
    public var reason: Reason? { failures.first?.reason }

    /// The first failure's detail.
    public var detail: String? { failures.first?.detail }

    public init(failures: [VerificationFailure], header: TokenHeader? = nil, claims: TokenClaims? = nil) {
        self.failures = failures
        self.header = header
        self.claims = claims
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

/// The JOSE header of a token, as read. Members are kept even when they are wrong, so that the
/// checks can name the problem; `jwk`, `jku`, `x5u`, `x5c` and other members are never used.
public struct TokenHeader: Sendable, Equatable {
    /// `alg` when it is a string.
    public var algorithm: String?
    /// `kid` when it is a string.
    public var keyID: String?
    /// `typ` when it is a string.
    public var type: String?
    /// Whether `alg` is present (of any type).
    public var hasAlgorithmMember = false
    /// Whether `kid` is present (of any type).
    public var hasKeyIDMember = false
    /// Whether `typ` is present (of any type).
    public var hasTypeMember = false
    /// Whether a `crit` member is present.
    public var hasCritical = false

    /// The algorithm, when `alg` names one tokenverify supports.
    public var supportedAlgorithm: SignatureAlgorithm? {
        algorithm.flatMap(SignatureAlgorithm.init(rawValue:))
    }
}

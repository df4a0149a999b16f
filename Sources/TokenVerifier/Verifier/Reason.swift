/// Why a token is not valid: the reason codes of spec §5, declared (and ordered) in check order.
public enum Reason: String, Sendable, CaseIterable, Comparable {
    case malformedRequest = "malformed_request"
    case malformedToken = "malformed_token"
    case unsupportedAlgorithm = "unsupported_alg"
    case badHeader = "bad_header"
    case unknownKey = "unknown_key"
    case untrustedChain = "untrusted_chain"
    case keyAlgorithmMismatch = "key_alg_mismatch"
    case wrongEnvironment = "wrong_environment"
    case wrongIssuer = "wrong_issuer"
    case notYetValid = "not_yet_valid"
    case expired = "expired"
    case revokedKey = "revoked_key"
    case revokedToken = "revoked_token"
    case revokedDevice = "revoked_device"
    case revokedObject = "revoked_object"
    case revokedGrant = "revoked_grant"
    case statusInvalid = "status_invalid"
    case statusSuspended = "status_suspended"
    case statusUnavailable = "status_unavailable"
    case wrongDevice = "wrong_device"
    case wrongObject = "wrong_object"
    case channelNotPermitted = "channel_not_permitted"
    case commandNotPermitted = "command_not_permitted"
    case stepRequired = "step_required"
    case badSignature = "bad_signature"

    public static func < (lhs: Reason, rhs: Reason) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One failed check: the reason code and one human sentence.
public struct VerificationFailure: Sendable, Equatable {
    public var reason: Reason
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }
}

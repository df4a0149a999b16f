#if canImport(Glibc)
import Glibc
#endif

/// The fastest signature path a process may take, as the environment variable
/// `TOKENVERIFY_SIGNATURE_PATH` caps it (spec §2 "Signatures"): `wide` (or unset) takes the
/// fastest path the machine allows, `tables` keeps the wide path off (the C back ends read the
/// variable themselves for that), `standard` keeps every key on the library's own call.
public enum SignaturePathCap: String, Sendable, CaseIterable {
    case wide, tables, standard

    /// The environment variable's name.
    public static let variable = "TOKENVERIFY_SIGNATURE_PATH"

    /// The cap `value` names: nil (unset) is `wide`; a value that names no cap is an error that
    /// names it.
    public static func parse(_ value: String?) -> Result<SignaturePathCap, SignaturePathCapError> {
        guard let value else { return .success(.wide) }
        guard let cap = SignaturePathCap(rawValue: value) else { return .failure(SignaturePathCapError(value: value)) }
        return .success(cap)
    }

    /// This process's cap, read once; a value that names no cap counts as unset here (the command
    /// line refuses it at start-up, ``parse(_:)``).
    public static let current: SignaturePathCap = {
        guard let pointer = getenv(variable) else { return .wide }
        return (try? parse(String(cString: pointer)).get()) ?? .wide
    }()
}

/// `TOKENVERIFY_SIGNATURE_PATH` holds a value that names no path.
public struct SignaturePathCapError: Error, CustomStringConvertible, Sendable {
    /// The value found.
    public var value: String

    public var description: String {
        "\(SignaturePathCap.variable)=\(value): must be one of "
            + SignaturePathCap.allCases.map(\.rawValue).joined(separator: ", ")
    }
}

/// Why a trust anchor file could not be loaded; its description names the file.
public struct TrustAnchorError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The file could not be read (the system's reason).
        case unreadable(String)
        /// No `-----BEGIN CERTIFICATE-----` block in it.
        case noCertificate
        /// A PEM block of another label (a private key, say), or a block without its END line.
        case badBlock(String)
        /// A block whose body is not base64.
        case badBase64
        /// A block whose bytes are not one DER certificate.
        case notDER
        /// Bytes other than white space after the last block.
        case trailingGarbage
        /// The same certificate (by SHA-256 thumbprint) given for two environments.
        case twoEnvironments(thumbprint: String, first: String, second: String)
    }

    public let file: String
    public let reason: Reason

    public init(file: String, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unreadable(let why): return "\(file): cannot read trust anchors: \(why)"
        case .noCertificate: return "\(file): no CERTIFICATE block"
        case .badBlock(let why): return "\(file): \(why)"
        case .badBase64: return "\(file): a CERTIFICATE block is not valid base64"
        case .notDER: return "\(file): a CERTIFICATE block is not a DER certificate"
        case .trailingGarbage: return "\(file): bytes after the last CERTIFICATE block"
        case .twoEnvironments(let thumbprint, let first, let second):
            return "\(file): certificate x5t#S256 \(thumbprint) is an anchor for both \(first) and \(second)"
        }
    }
}

/// A certificate's SHA-256 thumbprint as a plain value (no reference count when a verdict that
/// carries one is copied): the leaf a chain token was verified with (spec §3b, the answer's
/// `x5t#S256`).
@frozen public struct CertificateThumbprint: Sendable, Hashable {
    @usableFromInline let words: (UInt64, UInt64, UInt64, UInt64)

    /// The thumbprint of 32 SHA-256 bytes (nil for another length).
    init?(_ digest: [UInt8]) {
        guard digest.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: digest) }
        self.words = words
    }

    /// The 32 bytes.
    public var bytes: [UInt8] { withUnsafeBytes(of: words) { Array($0) } }

    /// `x5t#S256`: the base64url of the 32 bytes.
    public var base64URL: String { Base64URL.encodeString(bytes) }

    public static func == (left: CertificateThumbprint, right: CertificateThumbprint) -> Bool {
        left.words == right.words
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: words) { hasher.combine(bytes: $0) }
    }
}

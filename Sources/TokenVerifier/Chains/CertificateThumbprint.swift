/// A certificate's SHA-256 thumbprint: the leaf a chain token was verified with (spec §3b, the
/// answer's `x5t#S256`). One object per validated chain, shared by the verdicts of its tokens: a
/// verdict holds one reference (nil for a token verified by `kid`), not the bytes.
public final class CertificateThumbprint: Sendable {
    /// The 32 bytes of the SHA-256 digest.
    public let bytes: [UInt8]

    /// The thumbprint of 32 SHA-256 bytes (nil for another length).
    init?(_ digest: [UInt8]) {
        guard digest.count == 32 else { return nil }
        bytes = digest
    }

    /// `x5t#S256`: the base64url of the 32 bytes.
    public var base64URL: String { Base64URL.encodeString(bytes) }
}

/// Why a chain is not trusted, naming the certificate at fault (SPEC §3b, `untrusted_chain`).
struct ChainFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The certificate's subject (RFC 2253), or what is known of bytes that are no certificate.
    let subject: String
    /// The base64url SHA-256 of the certificate's bytes (`x5t#S256`).
    let thumbprint: String
    /// Why, as `expired at 2026-11-20T08:00:00Z (notAfter 2026-11-19T00:00:00Z)`.
    let why: String
    /// True for every failure of path validation (OpenSSL's choice among candidate issuers, and
    /// which of its checks fails first, may differ at another time): it holds for the second it
    /// was computed at. False only for refusals of the chain's bytes themselves (no certificate,
    /// more than 8, not a certificate's DER, a leaf that cannot sign tokens), which hold at any
    /// time for the same anchors, so a caller may keep them per anchor set.
    let dependsOnTime: Bool

    var description: String { "certificate \"\(subject)\" (x5t#S256 \(thumbprint)) \(why)" }

    init(subject: String, thumbprint: String, why: String, dependsOnTime: Bool = false) {
        self.subject = subject
        self.thumbprint = thumbprint
        self.why = why
        self.dependsOnTime = dependsOnTime
    }

    /// A failure about a certificate: `der` its bytes, `subject` nil when they are not one.
    init(subject: String?, der: [UInt8], why: String, dependsOnTime: Bool = false) {
        self.init(
            subject: subject ?? "(not a certificate)", thumbprint: Base64URL.encodeString(sha256(der)), why: why,
            dependsOnTime: dependsOnTime)
    }

    static func date(_ seconds: Int64) -> String { NumericDate.rfc3339(Double(seconds)) }
}

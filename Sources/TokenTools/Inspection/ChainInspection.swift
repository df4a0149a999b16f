import TokenVerifier

/// The certificate chain a token carries (`x5c`, `x5chain`, spec §3b), for `inspect`: its
/// certificates decoded, nothing validated.
package enum ChainInspection {
    /// The certificates of the chain `token` carries, leaf first (nil for bytes that are not a
    /// certificate), or why the chain cannot be read; nil when the token does not parse or carries
    /// no chain.
    package static func certificates(ofToken token: [UInt8]) -> Result<[CertificateSummary?], ChainSyntaxError>? {
        ChainItems.certificates(ofToken: token).map { $0.map { CertificateSummary.summaries(der: $0) } }
    }
}

/// The certificate chain a token carries (`x5c`, `x5chain`, spec §3b), for `inspect`: its
/// certificates decoded, nothing validated.
public enum ChainInspection {
    /// The certificates of the chain `token` carries, leaf first (nil for bytes that are not a
    /// certificate), or why the chain cannot be read; nil when the token does not parse or carries
    /// no chain.
    public static func certificates(ofToken token: [UInt8]) -> Result<[CertificateSummary?], ChainSyntaxError>? {
        let parsed = token.withUnsafeBufferPointer { ParsedToken.parse($0) }
        guard case .success(let parsed) = parsed, let chain = parsed.chain else { return nil }
        return parsed.withBytes(chain) { ChainItems.decode($0, format: parsed.format) }.map {
            CertificateSummary.summaries(der: $0)
        }
    }
}

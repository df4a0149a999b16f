import TokenVerifier

/// What `keys list` and `inspect` show of a certificate.
public struct CertificateSummary: Sendable, Equatable {
    /// The subject name in RFC 2253 form, as `CN=Leaf,O=Operator`.
    public let subject: String
    public let issuer: String
    /// Validity, in seconds since 1970 (UTC).
    public let notBefore: Int64
    public let notAfter: Int64
    /// subjectAltName URIs and dNSNames.
    public let uris: [String]
    public let dnsNames: [String]
    /// The base64url SHA-256 of the certificate's DER (`x5t#S256`).
    public let thumbprint: String
    /// basicConstraints: a CA, and its pathLenConstraint when one is given.
    public let isCA: Bool
    public let pathLength: Int?
    /// The subject key: `Ed25519`, `P-256`, `P-384`, `RSA 2048`, …
    public let keyDescription: String

    init?(_ certificate: borrowing X509Certificate, der: [UInt8]) {
        guard let validity = certificate.validity else { return nil }
        subject = certificate.subject
        issuer = certificate.issuer
        notBefore = validity.notBefore
        notAfter = validity.notAfter
        (uris, dnsNames) = certificate.alternativeNames
        thumbprint = Base64URL.encodeString(sha256(der))
        (isCA, pathLength) = certificate.authority
        keyDescription = certificate.keyDescription
    }

    /// A summary of each DER certificate, nil for bytes that are not one.
    public static func summaries(der: [[UInt8]]) -> [CertificateSummary?] {
        der.map { bytes in
            guard let certificate = X509Certificate(der: bytes) else { return nil }
            return CertificateSummary(certificate, der: bytes)
        }
    }

    /// The summaries of the CERTIFICATE blocks of a PEM text (`file` names it in an error).
    public static func summaries(pem: [UInt8], file: String) throws(TrustAnchorError) -> [CertificateSummary] {
        try PEMCertificates.parse(pem, file: file).map { der throws(TrustAnchorError) in
            guard let certificate = X509Certificate(der: der), let summary = CertificateSummary(certificate, der: der)
            else {
                throw TrustAnchorError(file: file, reason: .notDER)
            }
            return summary
        }
    }
}

extension TrustAnchors {
    /// What `keys list` shows of each anchor, in the order given.
    package var summaries: [CertificateSummary] { CertificateSummary.summaries(der: certificates).compactMap { $0 } }
}

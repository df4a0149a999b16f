import TokenFormats
import TokenTools
import TokenVerifier

/// How `keys list` and `inspect` show a certificate (spec §3b): its subject, issuer, validity,
/// names, thumbprint, CA status and key.
enum CertificateText {
    /// One JSON object: `{"subject":…,"issuer":…,"not_before":…,"not_after":…,"uris":[…],
    /// "dns_names":[…],"x5t#S256":…,"ca":…,"path_length":…,"key":…}` (times in RFC 3339), with
    /// `env` first when given.
    static func json(_ certificate: CertificateSummary, environment: String?? = nil) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{")
        if let environment {
            writer.key("env")
            if let environment { writer.string(environment) } else { writer.raw("null") }
            writer.raw(",")
        }
        for (name, value) in [
            ("subject", certificate.subject), ("issuer", certificate.issuer),
            ("not_before", NumericDate.rfc3339(Double(certificate.notBefore))),
            ("not_after", NumericDate.rfc3339(Double(certificate.notAfter))),
        ] {
            writer.key(name)
            writer.string(value)
            writer.raw(",")
        }
        writer.key("uris")
        writer.strings(certificate.uris)
        writer.raw(",")
        writer.key("dns_names")
        writer.strings(certificate.dnsNames)
        writer.raw(",")
        writer.key("x5t#S256")
        writer.string(certificate.thumbprint)
        writer.raw(certificate.isCA ? ",\"ca\":true," : ",\"ca\":false,")
        writer.key("path_length")
        if let pathLength = certificate.pathLength { writer.integer(pathLength) } else { writer.raw("null") }
        writer.raw(",")
        writer.key("key")
        writer.string(certificate.keyDescription)
        writer.raw("}")
        return writer.bytes
    }

    /// One tab-separated line: subject, issuer, not before, not after, names (comma-separated, "-"
    /// for none), `x5t#S256`, `CA` or `leaf` (with the path length), key.
    static func fields(_ certificate: CertificateSummary) -> [String] {
        let names = certificate.uris + certificate.dnsNames
        let role = certificate.isCA ? "CA" + (certificate.pathLength.map { " pathlen \($0)" } ?? "") : "end entity"
        return [
            certificate.subject, certificate.issuer, NumericDate.rfc3339(Double(certificate.notBefore)),
            NumericDate.rfc3339(Double(certificate.notAfter)), names.isEmpty ? "-" : names.joined(separator: ","),
            certificate.thumbprint, role, certificate.keyDescription,
        ]
    }
}

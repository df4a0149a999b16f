internal import CTokenCrypto
internal import CTokenSigning
import TokenVerifier

/// The subject key of a certificate: a public key, and its private key when the JWK held one
/// (a self-signed root signs with it).
public struct CertificateKey: Sendable {
    public let type: KeyType
    /// 32 bytes (Ed25519) or x‖y (P-256).
    public let publicKey: [UInt8]
    /// The private key, when the JWK was a private one.
    public let signingKey: SigningKey?

    /// Reads one JWK, private (as `keygen` writes NAME.private.jwk) or public.
    public init(jwk: [UInt8]) throws(CertificateProblem) {
        if String(decoding: jwk.prefix(64), as: UTF8.self).contains("-----BEGIN") {
            throw CertificateProblem(
                "a PEM file; the subject key is a JWK (`tokenverify keys import FILE` turns a PEM public key into one)")
        }
        let keys: [(members: [String: String], material: KeyMaterial)]
        do {
            keys = try JWKInput.keys(in: jwk)
        } catch {
            throw CertificateProblem(error.message)
        }
        guard keys.count == 1 else { throw CertificateProblem("holds \(keys.count) keys; the subject key is one JWK") }
        type = keys[0].material.type
        publicKey = keys[0].material.publicKey
        if keys[0].material.fromPrivateKey {
            do {
                signingKey = try SigningKey.parse(jwk: jwk)
            } catch {
                throw CertificateProblem(error.description)
            }
        } else {
            signingKey = nil
        }
    }

    /// The key as an OpenSSL key, for the certificate builder.
    fileprivate func openSSLKey() -> UnsafeMutableRawPointer? {
        switch type {
        case .ed25519: tv_ed25519_public_key_new(publicKey)
        case .p256: tv_p256_public_key_new(Array(publicKey[0..<32]), Array(publicKey[32..<64]))
        }
    }
}

/// Issues X.509 v3 certificates (spec §3b, `tokenverify certificate`): self-signed roots, and
/// certificates signed under an issuer certificate with that certificate's private key. OpenSSL
/// builds, encodes and signs them (certificate.c).
public enum CertificateIssuer {
    /// Who signs: the subject's own key (a self-signed root), or an issuer certificate and its key.
    public enum Signer: Sendable {
        case selfSigned
        case issuer(Certificate, SigningKey)
    }

    /// Issues `request` for `subjectKey`, signed by `signer`; also returns warnings for stderr
    /// (a certificate that is made but cannot be part of a valid chain).
    public static func issue(
        _ request: CertificateRequest, subjectKey: CertificateKey, signer: Signer
    ) throws(CertificateProblem) -> (certificate: Certificate, warnings: [String]) {
        if let problem = request.problem() { throw problem }
        let signingKey: SigningKey
        var warnings: [String] = []
        switch signer {
        case .selfSigned:
            guard request.isCA else {
                throw CertificateProblem(
                    "a certificate without an issuer is a self-signed root and needs --ca; give a leaf --issuer-cert and --issuer-key"
                )
            }
            guard let own = subjectKey.signingKey else {
                throw CertificateProblem(
                    "a self-signed root is signed by its own key: the subject key must be a private JWK (with \"d\")")
            }
            signingKey = own
        case .issuer(let certificate, let key):
            guard certificate.holds(key) else {
                throw CertificateProblem(
                    "the issuer key \"\(key.keyID)\" (\(key.publicKeyMaterial.type.rawValue)) is not the key of the issuer certificate \(certificate.shown)"
                )
            }
            guard certificate.isCA else {
                throw CertificateProblem(
                    "the issuer certificate \"\(certificate.subject)\" is not a CA (basicConstraints CA with keyCertSign); issue it with --ca"
                )
            }
            if request.isCA, certificate.pathLength == 0 {
                warnings.append(
                    "the issuer \"\(certificate.subject)\" has path length 0: no chain through this CA certificate validates"
                )
            }
            signingKey = key
        }
        return (try build(request, subjectKey: subjectKey, signer: signer, signingKey: signingKey), warnings)
    }

    private static func build(
        _ request: CertificateRequest, subjectKey: CertificateKey, signer: Signer, signingKey: SigningKey
    ) throws(CertificateProblem) -> Certificate {
        guard let builder = tv_certificate_builder_new() else { throw CertificateProblem("OpenSSL: out of memory") }
        defer { tv_certificate_builder_free(builder) }
        for (field, value) in request.subject where tv_certificate_add_subject_entry(builder, field, value) != 1 {
            throw CertificateProblem(
                "the subject attribute \(field)=\(value) is unknown or its value is not allowed (known: CN, O, OU, C (two letters), L, ST, serialNumber, DC, …)"
            )
        }
        guard let subjectOpenSSLKey = subjectKey.openSSLKey() else {
            throw CertificateProblem("OpenSSL refused the subject's \(subjectKey.type.rawValue) public key")
        }
        defer { tv_p256_key_free(subjectOpenSSLKey) }
        guard tv_certificate_set_serial(builder, request.serial, request.serial.count) == 1,
            tv_certificate_set_validity(builder, request.notBefore, request.notAfter) == 1,
            tv_certificate_set_public_key(builder, subjectOpenSSLKey) == 1
        else { throw CertificateProblem("OpenSSL refused the serial number, the validity or the key") }
        if request.isCA { tv_certificate_set_ca(builder, Int32(request.pathLength ?? -1)) }
        for (isURI, names) in [(Int32(1), request.uris), (0, request.dnsNames)] {
            for name in names where tv_certificate_add_name(builder, isURI, name) != 1 {
                throw CertificateProblem("OpenSSL refused the name \"\(name)\"")
            }
        }
        guard let issuerKey = openSSLKey(signingKey) else { throw CertificateProblem("OpenSSL refused the issuer key") }
        defer { tv_p256_key_free(issuerKey) }
        let signed: Int32
        switch signer {
        case .selfSigned: signed = tv_certificate_sign(builder, nil, 0, issuerKey)
        case .issuer(let certificate, _):
            signed = tv_certificate_sign(builder, certificate.der, certificate.der.count, issuerKey)
        }
        guard signed == 1 else { throw CertificateProblem("OpenSSL could not sign the certificate") }
        let length = tv_certificate_der(builder, nil, 0)
        var der = [UInt8](repeating: 0, count: length)
        guard length > 0, tv_certificate_der(builder, &der, der.count) == length else {
            throw CertificateProblem("OpenSSL could not encode the certificate")
        }
        return try Certificate(der: der)
    }

    /// The private key as an OpenSSL key.
    private static func openSSLKey(_ key: SigningKey) -> UnsafeMutableRawPointer? {
        switch key.material {
        case .ed25519(let seed, _, _): tv_ed25519_private_key_new(seed)
        case .p256(let privateKey): tv_p256_private_key_new(privateKey.d, nil, nil)
        }
    }
}

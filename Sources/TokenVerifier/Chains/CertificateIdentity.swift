import CTokenX509

/// One certificate of a validated path as revocations name it (spec §3b, §4).
struct CertificateIdentity: Sendable, Hashable {
    /// x5t#S256 of every DER encoding of this certificate (as carried, and its ECDSA (r, n − s) twin),
    /// base64url, UTF-8. The first is the one carried.
    let thumbprints: [[UInt8]]
    /// spki#S256: base64url SHA-256 of its SubjectPublicKeyInfo (DER, an EC point uncompressed), UTF-8.
    let keyThumbprint: [UInt8]
}

extension CertificateIdentity {
    /// The identities of a validated path's certificates (`handles`: leaf first, anchor last, each
    /// issued by the next; the last by itself or by an anchor not in the path). Computed once per
    /// validated chain: a twin costs a decode and an encode of the certificate.
    static func of(path handles: [UnsafeRawPointer]) -> [CertificateIdentity] {
        handles.indices.map { index in
            let certificate = X509Certificate(borrowing: handles[index])
            let issuer = index + 1 < handles.count ? handles[index + 1] : nil
            let der = certificate.der
            let encodings = [der] + certificate.twins(of: der, issuedBy: issuer)
            return CertificateIdentity(
                thumbprints: encodings.map { Base64URL.encode(sha256($0)) },
                keyThumbprint: Base64URL.encode(sha256(certificate.subjectPublicKeyInfo)))
        }
    }
}

extension X509Certificate {
    /// What is wrong with `der` as one certificate's DER, or nil when nothing is.
    enum EncodingFault: Sendable, Equatable {
        /// The bytes do not decode as one certificate.
        case notACertificate
        /// They decode, but are not DER: OpenSSL's re-encoding (the tbsCertificate's too) differs.
        case notDER
    }

    static func encodingFault(_ der: [UInt8]) -> EncodingFault? {
        switch der.withUnsafeBufferPointer({ tv_x509_der_status($0.baseAddress, $0.count) }) {
        case Int32(TV_X509_DECODE_OK): return nil
        case Int32(TV_X509_DECODE_NOT_DER): return .notDER
        default: return .notACertificate
        }
    }

    /// The DER of this certificate's ECDSA twins (its signature (r, s) as (r, n − s)): one for the
    /// order of `issuer`'s key, or when the issuer is not known, of its own key if self-issued, else
    /// one for each of P-256, P-384 and P-521. None for a signature that is not ECDSA.
    /// `der` is this certificate's DER.
    func twins(of der: [UInt8], issuedBy issuer: UnsafeRawPointer?) -> [[UInt8]] {
        var twins: [[UInt8]] = []
        var candidate: Int32 = 0
        var buffer = [UInt8](repeating: 0, count: der.count + 16)
        func twin() -> Int {
            der.withUnsafeBufferPointer { der in
                buffer.withUnsafeMutableBufferPointer {
                    tv_x509_cert_twin(handle, der.baseAddress, der.count, issuer, candidate, $0.baseAddress, $0.count)
                }
            }
        }
        while true {
            var length = twin()
            if length > buffer.count {
                buffer = [UInt8](repeating: 0, count: length)
                length = twin()
            }
            guard length >= 0 else { return twins }
            if length > 0 && length <= buffer.count { twins.append(Array(buffer[0..<length])) }
            candidate += 1
        }
    }

    /// The SubjectPublicKeyInfo's DER (an EC point uncompressed); empty when unreadable.
    var subjectPublicKeyInfo: [UInt8] {
        let length = tv_x509_cert_spki(handle, nil, 0)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        let written = bytes.withUnsafeMutableBufferPointer { tv_x509_cert_spki(handle, $0.baseAddress, $0.count) }
        return written == length ? bytes : []
    }
}

import CTokenX509

/// Reading a validation result of CTokenX509: the trusted path's fields, or the failure.
extension TrustAnchors {
    /// The validated path (leaf first, anchor last) as a TrustedChain: its joint validity, the
    /// leaf's key and names, and each certificate's identity.
    static func trustedPath(
        of result: UnsafeMutableRawPointer, environment: Environment?
    ) -> Result<TrustedChain, StoreFailure> {
        let count = tv_x509_result_path_count(result)
        var handles: [UnsafeRawPointer] = []
        var thumbprints: [[UInt8]] = []
        var notBefore = Int64.min
        var notAfter = Int64.max
        for index in 0..<count {
            guard let handle = tv_x509_result_path_cert(result, index) else { continue }
            let certificate = X509Certificate(borrowing: handle)
            guard let validity = certificate.validity else {
                return .failure(
                    StoreFailure(
                        failure: ChainFailure(
                            subject: certificate.subject, der: certificate.der, why: "has an unreadable validity")))
            }
            handles.append(handle)
            thumbprints.append(sha256(certificate.der))
            notBefore = max(notBefore, validity.notBefore)
            // OpenSSL takes a certificate as expired from its notAfter second on (X509_cmp_time
            // counts equal times as earlier), so the last second the path validates is one before.
            notAfter = min(notAfter, validity.notAfter - 1)
        }
        guard count > 0, handles.count == count else {
            return .failure(
                StoreFailure(
                    failure: ChainFailure(subject: "(none)", thumbprint: "", why: "validated to an empty path")))
        }
        let leaf = X509Certificate(borrowing: handles[0])
        let names = leaf.alternativeNames
        return .success(
            TrustedChain(
                key: leaf.key.leaf ?? .ed25519([]), environment: environment, notBefore: notBefore,
                notAfter: notAfter, uris: names.uris, dnsNames: names.dnsNames, thumbprints: thumbprints,
                leafSubject: leaf.subject, certificates: CertificateIdentity.of(path: handles)))
    }

    /// The failure of a result that did not validate, naming the certificate at fault: it holds at
    /// `time` (path validation's choices and the order of its checks may differ at another).
    static func failure(of result: UnsafeMutableRawPointer, chain: [[UInt8]], at time: Int64) -> StoreFailure {
        let category = Int(tv_x509_result_category(result))
        let index = Int(tv_x509_result_failing_index(result))
        var subject: String? = nil
        var der: [UInt8] = index >= 0 && index < chain.count ? chain[index] : []
        var validity: (notBefore: Int64, notAfter: Int64)? = nil
        var issuer = ""
        if let handle = tv_x509_result_failing_cert(result) {
            let certificate = X509Certificate(borrowing: handle)
            subject = certificate.subject
            der = certificate.der
            validity = certificate.validity
            issuer = certificate.issuer
        }
        let openSSL = String(cString: tv_x509_result_error_text(result))
        let why = reason(category, at: time, validity: validity, issuer: issuer, index: index, openSSL: openSSL)
        return StoreFailure(
            failure: ChainFailure(subject: subject, der: der, why: why, dependsOnTime: true),
            unknownIssuer: category == Int(TV_X509_UNKNOWN_ISSUER), forced: tv_x509_result_forced(result) == 1)
    }

    private static func reason(
        _ category: Int, at time: Int64, validity: (notBefore: Int64, notAfter: Int64)?, issuer: String, index: Int,
        openSSL: String
    ) -> String {
        let at = ChainFailure.date(time)
        switch category {
        case Int(TV_X509_EXPIRED):
            return "expired at \(at) (notAfter \(validity.map { ChainFailure.date($0.notAfter) } ?? "?"))"
        case Int(TV_X509_NOT_YET_VALID):
            return "not yet valid at \(at) (notBefore \(validity.map { ChainFailure.date($0.notBefore) } ?? "?"))"
        case Int(TV_X509_TIME_UNCOMPARABLE): return "has a validity that cannot be compared with \(at) (\(openSSL))"
        case Int(TV_X509_UNKNOWN_ISSUER): return "has an unknown issuer \"\(issuer)\": no anchor issued it"
        case Int(TV_X509_NOT_CA):
            return "is not a CA (basicConstraints cA with keyUsage keyCertSign) but issued a certificate of the chain"
        case Int(TV_X509_NO_CERTSIGN): return "is not a CA for certificates: its keyUsage lacks keyCertSign"
        case Int(TV_X509_PATH_TOO_LONG): return "has a path too long for its pathLenConstraint"
        case Int(TV_X509_BAD_SIGNATURE): return "has a bad signature"
        case Int(TV_X509_UNSUPPORTED_CRITICAL): return "has an unsupported critical extension"
        case Int(TV_X509_NOT_DER): return "is not DER (certificate \(index + 1) of the chain)"
        case Int(TV_X509_NOT_STRICT_DER): return "is not DER-encoded (certificate \(index + 1) of the chain)"
        case Int(TV_X509_TOO_MANY): return "needs a path of more than \(maximumChainLength) certificates"
        default: return "is refused by RFC 5280 path validation: \(openSSL)"
        }
    }
}

extension TrustedChain {
    /// The same chain, trusted at `time` only.
    func narrowed(to time: Int64) -> TrustedChain {
        TrustedChain(
            key: key, environment: environment, notBefore: time, notAfter: time, uris: uris, dnsNames: dnsNames,
            thumbprints: thumbprints, leafSubject: leafSubject, certificates: certificates)
    }
}

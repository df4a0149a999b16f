import TokenFormats
import TokenVerifier

/// A certificate chain carried in a token's header (spec §3b), leaf first: a JWS `x5c` (RFC 7515
/// §4.1.6, an array of standard-base64 DER) or a COSE `x5chain` (label 33, RFC 9360: one bstr for
/// one certificate, else an array of bstr) in the protected header. A chained token carries no
/// `kid`: it is found by its chain.
public struct TokenChain: Sendable {
    /// The certificates, leaf first, as given (the anchor may be left out).
    public let certificates: [Certificate]

    /// The chain for tokens signed by `key`: the leaf's public key must be `key`'s.
    public init(_ certificates: [Certificate], signingKey key: SigningKey) throws(CertificateProblem) {
        guard let leaf = certificates.first else { throw CertificateProblem("the chain holds no certificate") }
        guard leaf.holds(key) else {
            throw CertificateProblem(
                "the leaf certificate \(leaf.shown) does not hold the signing key \"\(key.keyID)\" (\(key.publicKeyMaterial.type.rawValue)); put the signing key's certificate first"
            )
        }
        self.certificates = certificates
    }

    /// The JWS header `{"alg":…,"typ":…,"x5c":[…]}`, with `"kid":…` after `alg` when `keyID` is
    /// given (a verifier with trust anchors uses the chain, one without finds the key by `kid`).
    public func jwsHeader(algorithm: SignatureAlgorithm, type: String, keyID: String? = nil) -> [UInt8] {
        var header = JSONWriter()
        header.raw("{\"alg\":")
        header.string(algorithm.rawValue)
        if let keyID {
            header.raw(",\"kid\":")
            header.string(keyID)
        }
        header.raw(",\"typ\":")
        header.string(type)
        header.raw(",\"x5c\":[")
        for (index, certificate) in certificates.enumerated() {
            if index > 0 { header.raw(",") }
            header.string(StandardBase64.encode(certificate.der))
        }
        header.raw("]}")
        return header.bytes
    }

    /// The COSE protected header `{1: alg, 16: typ, 33: x5chain}` (`typ` when given), its keys in
    /// CBOR's canonical order.
    public func coseProtectedHeader(algorithm: Int64, type: String? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        CBORHead.append(major: 5, UInt64(type == nil ? 2 : 3), to: &bytes)
        CBORHead.append(major: 0, 1, to: &bytes)
        if algorithm < 0 {
            CBORHead.append(major: 1, UInt64(-1 - algorithm), to: &bytes)
        } else {
            CBORHead.append(major: 0, UInt64(algorithm), to: &bytes)
        }
        if let type {
            CBORHead.append(major: 0, 16, to: &bytes)
            CBORHead.append(major: 3, UInt64(type.utf8.count), to: &bytes)
            bytes += type.utf8
        }
        CBORHead.append(major: 0, 33, to: &bytes)
        if certificates.count > 1 { CBORHead.append(major: 4, UInt64(certificates.count), to: &bytes) }
        for certificate in certificates {
            CBORHead.append(major: 2, UInt64(certificate.der.count), to: &bytes)
            bytes += certificate.der
        }
        return bytes
    }
}

/// A CBOR head (RFC 8949 §3): major type and argument, in the shortest form.
enum CBORHead {
    static func append(major: UInt8, _ argument: UInt64, to bytes: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: bytes.append(type | UInt8(argument))
        case 24...0xFF: bytes += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: bytes += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF:
            bytes += [type | 26] + (0..<4).reversed().map { UInt8(argument >> ($0 * 8) & 0xFF) }
        default: bytes += [type | 27] + (0..<8).reversed().map { UInt8(argument >> ($0 * 8) & 0xFF) }
        }
    }
}

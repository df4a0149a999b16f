import TokenFormats
import TokenVerifier

/// The CBOR of a CWT the tools sign (spec §2b): the protected header, the tagged COSE_Sign1
/// message over the Sig_structure, and a Status List Token's claims (the claims map of JSON
/// claims is TokenVerifier's `cwtClaims(json:)`, beside its JSON reader).
package enum CWTWriter {
    /// The protected header `{1: alg, 4: h'kid'}`, and `16: type` when given, encoded.
    package static func protectedHeader(algorithm: Int64, keyID: String, type: String? = nil) -> [UInt8] {
        var writer = CBORWriter()
        writer.head(major: 5, argument: type == nil ? 2 : 3)
        writer.integer(1)
        writer.integer(algorithm)
        writer.integer(4)
        writer.byteString(Array(keyID.utf8))
        if let type {
            writer.integer(16)
            writer.text(type)
        }
        return writer.bytes
    }

    /// The COSE_Sign1 message under tag 18, `[protected, unprotected (CBOR map bytes), presented
    /// payload, signature]`, where `sign` signs the Sig_structure `["Signature1", protected, h'',
    /// payload]` (`presentedPayload` differs from `payload` only in a tampered test token).
    package static func signedMessage(
        protected: [UInt8], unprotected: [UInt8], payload: [UInt8], presentedPayload: [UInt8],
        sign: ([UInt8]) -> [UInt8]
    ) -> [UInt8] {
        let structure = CBORWriter.signatureStructure(protected: protected, payload: payload)
        return message(
            protected: protected, unprotected: unprotected, payload: presentedPayload, signature: sign(structure))
    }

    /// The COSE_Sign1 message under tag 18: `[protected, unprotected (CBOR map bytes), payload, signature]`.
    static func message(protected: [UInt8], unprotected: [UInt8], payload: [UInt8], signature: [UInt8]) -> [UInt8] {
        var writer = CBORWriter()
        writer.head(major: 6, argument: 18)
        writer.head(major: 4, argument: 4)
        writer.byteString(protected)
        writer.raw(unprotected)
        writer.byteString(payload)
        writer.byteString(signature)
        return writer.bytes
    }

    /// The claims of a CWT Status List Token (draft §5.2): `{1: iss, 2: uri, 6: iat, 4: exp,
    /// 65534: ttl, 65533: {"bits": bits, "lst": h'…'}}`, `iss`, `exp` and `ttl` when given.
    package static func statusListClaims(
        uri: String, issuedAt: Int64, expiresAt: Int64?, timeToLive: Int64?, bits: Int,
        compressedList: [UInt8], issuer: String? = nil
    ) -> [UInt8] {
        var writer = CBORWriter()
        let optional = [issuer != nil, expiresAt != nil, timeToLive != nil].filter { $0 }.count
        writer.head(major: 5, argument: UInt64(3 + optional))
        if let issuer {
            writer.integer(1)
            writer.text(issuer)
        }
        writer.integer(2)
        writer.text(uri)
        writer.integer(6)
        writer.integer(issuedAt)
        if let expiresAt {
            writer.integer(4)
            writer.integer(expiresAt)
        }
        if let timeToLive {
            writer.integer(65534)
            writer.integer(timeToLive)
        }
        writer.integer(65533)
        writer.head(major: 5, argument: 2)
        writer.text("bits")
        writer.integer(Int64(bits))
        writer.text("lst")
        writer.byteString(compressedList)
        return writer.bytes
    }
}

import TokenVerifier

/// A CWT's COSE_Sign1 message decoded for reading (`tokenverify inspect`), nothing verified: its
/// two header maps, its payload (the claims) as CBOR values, and the signature's length.
///
/// The bytes are read with the same strict rules as verification (spec §2b), but no signature,
/// key, time or revocation is checked.
package struct COSESign1Contents: Sendable, Equatable {
    /// The protected header map (an empty map when the protected header is empty).
    package var protected: CBORValue
    package var unprotected: CBORValue
    /// The payload decoded as one CBOR item: a CWT's claims map.
    package var payload: CBORValue
    package var signatureByteCount: Int

    /// Decodes a CWT written as `token` (base64url of a COSE_Sign1 message), or says why it
    /// cannot be read.
    package static func decode(cwt token: [UInt8]) -> Result<COSESign1Contents, CBORError> {
        guard let cbor = Base64URL.decode(token) else { return .failure(CBORError("not canonical base64url", at: 0)) }
        return cbor.withUnsafeBufferPointer { (bytes) -> Result<COSESign1Contents, CBORError> in
            do throws(CBORError) {
                return .success(try COSESign1Contents(bytes))
            } catch {
                return .failure(error)
            }
        }
    }

    private init(_ bytes: UnsafeBufferPointer<UInt8>) throws(CBORError) {
        let message = try COSESign1(bytes)
        protected = message.protected.isEmpty ? .map([]) : try Self.item(in: bytes, message.protected)
        var reader = CBORReader(bytes, at: message.unprotectedStart)
        unprotected = try CBORValue.read(&reader)
        payload = try Self.item(in: bytes, message.payload)
        signatureByteCount = message.signature.count
    }

    /// The one CBOR item that `range` of `bytes` holds.
    private static func item(in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(CBORError) -> CBORValue {
        var reader = CBORReader(UnsafeBufferPointer(rebasing: bytes[range]))
        let value = try CBORValue.read(&reader)
        try reader.finish()
        return value
    }
}

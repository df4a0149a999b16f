/// Checks 3 and 4: `alg` is one of the three, `kid` is a string, `crit` is absent and `typ`, if
/// present, is `JWT` or `dkt+jwt` (any case). Returns the algorithm when it is supported.
struct HeaderPolicy {
    func check(_ header: ParsedToken, _ failures: inout FailureList) -> SignatureAlgorithm? {
        let algorithm = header.supportedAlgorithm
        if algorithm == nil {
            if let name = header.algorithm {
                failures.add(.unsupportedAlgorithm, "alg \"\(header.string(name))\" is not accepted (accepted: Ed25519, EdDSA, ES256)")
            } else if header.hasAlgorithmMember {
                failures.add(.unsupportedAlgorithm, "alg must be a string naming Ed25519, EdDSA or ES256")
            } else {
                failures.add(.unsupportedAlgorithm, "the header has no alg")
            }
            if failures.isDone { return nil }
        }
        if header.keyID == nil {
            failures.add(.badHeader, header.hasKeyIDMember ? "kid must be a string" : "the header has no kid")
            if failures.isDone { return algorithm }
        }
        if header.hasCritical {
            failures.add(.badHeader, "the header has crit, and no extension is understood")
            if failures.isDone { return algorithm }
        }
        if header.hasTypeMember {
            if let type = header.type {
                if !header.withBytes(type, Self.isAcceptedType) {
                    failures.add(.badHeader, "typ \"\(header.string(type))\" is not accepted (accepted: JWT, dkt+jwt)")
                }
            } else {
                failures.add(.badHeader, "typ must be a string")
            }
        }
        return algorithm
    }

    /// `JWT` or `dkt+jwt`, compared without regard to ASCII case.
    static func isAcceptedType(_ type: UnsafeBufferPointer<UInt8>) -> Bool {
        equalsIgnoringASCIICase(type, "jwt") || equalsIgnoringASCIICase(type, "dkt+jwt")
    }

    private static func equalsIgnoringASCIICase(_ utf8: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard utf8.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            for (index, byte) in utf8.enumerated() {
                let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                if folded != expected[index] { return false }
            }
            return true
        }
    }
}

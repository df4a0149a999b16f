/// Check 4 (`bad_header`): `kid` is a string, `crit` is absent, and `typ`, if present, is `JWT`
/// or `dkt+jwt` (any case); a CWT's header problems were named by its parser (spec §2b). A token
/// that carries a chain needs no `kid` where trust anchors are configured (spec §3b); other keys
/// carried in the header (`jwk`, `jku`, `x5u`) are never read, nor a chain without anchors.
struct HeaderCheck: TokenCheck {
    func check(
        _ header: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        if let problem = header.headerProblem {
            failures.add(.badHeader, problem)
            return
        }
        let usesChain = header.chain != nil && input.state.chains != nil
        if usesChain && header.chainInBothHeaders {
            failures.add(.badHeader, "x5chain (33) is in both headers")
            return
        }
        if header.keyID == nil && !usesChain {
            failures.add(.badHeader, header.hasKeyIDMember ? "kid must be a string" : "the header has no kid")
            if failures.isDone { return }
        }
        if header.hasCritical {
            failures.add(.badHeader, "the header has crit, and no extension is understood")
            if failures.isDone { return }
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

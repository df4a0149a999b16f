internal import CTokenCrypto

extension VerificationWorker {
    /// Calls `body` with the hints for a batch's ES256 signatures: s⁻¹ mod n for each one still
    /// to be checked (not in the signature cache), made together, one inversion for every 64 of
    /// them (`tv_p256_signature_inverses`) instead of one each (an inversion is about a fifth of
    /// a table-path verify). `body` is given, for an item, where its hint lies (nil: none). A hint is only ever
    /// taken for the inverse it claims to be (``P256VerifyContext/verify(signature:message:inverse:)``),
    /// so the verdicts are those of single verifies.
    func withES256Inverses<R>(
        _ states: UnsafeMutablePointer<Prepared>, _ isRequest: UnsafeMutableBufferPointer<Bool>,
        snapshot: VerifierSnapshot, _ body: ((Int) -> UnsafePointer<UInt64>?) -> R
    ) -> R {
        let count = isRequest.count
        let facts = snapshot.keys.facts.facts
        func needsInverse(_ index: Int) -> Bool {
            guard isRequest[index], let keyIndex = states[index].signatureKey, facts[keyIndex].type == .p256,
                states[index].parsed?.signature.count == 64
            else { return false }
            guard let cacheKey = states[index].signatureCacheKey else { return true }
            return !snapshot.signatureCache!.contains(cacheKey)
        }
        var signatures = 0
        for index in 0..<count where needsInverse(index) { signatures += 1 }
        // One signature gains nothing from sharing its inversion.
        guard signatures > 1 else { return body { _ in nil } }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { slots in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32 * signatures) { sValues in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * signatures) { inverses in
                    var next = 0
                    for index in 0..<count {
                        guard next < signatures, needsInverse(index) else {
                            slots[index] = -1
                            continue
                        }
                        let parsed = states[index].parsed!
                        parsed.withBytes(parsed.signature) { signature in
                            let s = UnsafeMutableBufferPointer(rebasing: sValues[32 * next..<32 * next + 32])
                            _ = s.initialize(from: signature[32..<64])
                        }
                        slots[index] = Int32(next)
                        next += 1
                    }
                    tv_p256_signature_inverses(sValues.baseAddress, next, inverses.baseAddress)
                    let limbs = UnsafePointer(inverses.baseAddress!)
                    return body { index in slots[index] < 0 ? nil : limbs + 4 * Int(slots[index]) }
                }
            }
        }
    }
}

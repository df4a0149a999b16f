internal import CTokenCrypto

/// Where each item of a batch finds its ES256 hint (``VerificationWorker/withES256Inverses(_:_:snapshot:_:)``).
struct ES256Inverses {
    /// Item → its hint's place among `limbs` (-1: none); nil when no item has one.
    fileprivate let slots: UnsafeMutablePointer<Int32>?
    fileprivate let limbs: UnsafePointer<UInt64>?

    /// Item `index`'s s⁻¹ mod n (four little-endian limbs), or nil.
    @inline(__always)
    subscript(index: Int) -> UnsafePointer<UInt64>? {
        guard let slots, slots[index] >= 0 else { return nil }
        return limbs! + 4 * Int(slots[index])
    }
}

extension VerificationWorker {
    /// Calls `body` with the hints for a batch's ES256 signatures: s⁻¹ mod n for each one still
    /// to be checked, made together, one inversion for every 64 of them
    /// (`tv_p256_table_inverses`) instead of one each (an inversion is about a fifth of a
    /// table-path verify). A hint is only ever taken for the inverse it claims to be
    /// (``P256VerifyContext/verify(signature:message:inverse:)``), so the verdicts are those of
    /// single verifies. The signature cache is looked up here for these tokens: one it holds
    /// needs no signature check (its `signatureKey` is cleared), and one given a hint is not in it.
    func withES256Inverses<R>(
        _ states: UnsafeMutablePointer<Prepared>, _ isRequest: UnsafeMutableBufferPointer<Bool>,
        snapshot: VerifierSnapshot, _ body: (ES256Inverses) -> R
    ) -> R {
        let count = isRequest.count
        let facts = snapshot.keys.facts.facts
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { slots in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * count) { sValues in
                // Each signature's s, back to back; its place among them in `slots` (-1: none).
                var signatures = 0
                for index in 0..<count {
                    slots[index] = -1
                    guard isRequest[index], let keyIndex = states[index].signatureKey,
                        facts[keyIndex].type == .p256
                    else { continue }
                    if let cacheKey = states[index].signatureCacheKey, snapshot.signatureCache!.contains(cacheKey) {
                        // Check 12 answered by the cache, as `SignatureCheck` would answer it.
                        states[index].signatureKey = nil
                        continue
                    }
                    // Read through `!` in place: a `let` binding would take a reference count.
                    let copied = states[index].parsed!.withBytes(states[index].parsed!.signature) { signature in
                        guard signature.count == 64 else { return false }
                        let s = UnsafeRawPointer(signature.baseAddress! + 32)
                        let to = sValues.baseAddress! + 4 * signatures
                        for word in 0..<4 { to[word] = s.loadUnaligned(fromByteOffset: 8 * word, as: UInt64.self) }
                        return true
                    }
                    if copied {
                        slots[index] = Int32(signatures)
                        signatures += 1
                    }
                }
                // One signature gains nothing from sharing its inversion.
                guard signatures > 1 else { return body(ES256Inverses(slots: nil, limbs: nil)) }
                return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * signatures) { inverses in
                    sValues.withMemoryRebound(to: UInt8.self) {
                        tv_p256_table_inverses($0.baseAddress, signatures, inverses.baseAddress)
                    }
                    return body(ES256Inverses(slots: slots.baseAddress, limbs: UnsafePointer(inverses.baseAddress)))
                }
            }
        }
    }
}

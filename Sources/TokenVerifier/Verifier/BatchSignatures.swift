internal import CTokenCrypto
internal import CTokenEd25519

/// What a batch's signature pass worked out for its tokens before their check 12
/// (``VerificationWorker/withBatchSignatures(_:_:_:snapshot:_:)``): an ES256 token's s⁻¹ mod n,
/// or an Ed25519 token's verdict.
struct BatchSignatures {
    /// Item → its ES256 inverse's place among `inverses` (0 or more), its Ed25519 verdict's
    /// among `verdicts` (−2 − place), or none (−1); nil when no item has either.
    fileprivate let slots: UnsafeMutablePointer<Int32>?
    fileprivate let inverses: UnsafePointer<UInt64>?
    fileprivate let verdicts: UnsafePointer<UInt8>?

    /// Item `index`'s s⁻¹ mod n (four little-endian limbs), or nil.
    @inline(__always)
    func inverse(_ index: Int) -> UnsafePointer<UInt64>? {
        guard let slots, slots[index] >= 0 else { return nil }
        return inverses! + 4 * Int(slots[index])
    }

    /// Item `index`'s signature verdict, when the batch verified it already.
    @inline(__always)
    func verdict(_ index: Int) -> Bool? {
        guard let slots, slots[index] <= -2 else { return nil }
        return verdicts![-2 - Int(slots[index])] == 1
    }
}

extension VerificationWorker {
    /// Calls `body` with what the batch's signatures share, for the tokens whose signature is
    /// still to be checked (the signature cache is looked up here for them: one it holds needs
    /// no check, and its `signatureKey` is cleared; a token met again in the batch is left to
    /// check 12, which finds its first copy's entry):
    ///
    /// - ES256: s⁻¹ mod n for each, one inversion for every 64 of them
    ///   (`tv_p256_table_inverses`) instead of one each; a verify takes such a hint only once it
    ///   has checked it (``P256VerifyContext/verify(signature:message:inverse:)``).
    /// - Ed25519 with its key's table ready: the verdicts, verified together
    ///   (`tv_ed25519_table_verify_many`: the steps of one verify each, the points' encodings
    ///   sharing one field inversion for every 32), which check 12 then takes as its own.
    ///
    /// An inversion is a sixth to a fifth of a table-path verify's time (`perf`, ES256 and Ed25519).
    func withBatchSignatures<R>(
        _ requests: some BatchRequests, _ states: UnsafeMutablePointer<Prepared>,
        _ isRequest: UnsafeMutableBufferPointer<Bool>, snapshot: VerifierSnapshot, _ body: (BatchSignatures) -> R
    ) -> R {
        let count = isRequest.count
        let facts = snapshot.keys.facts.facts
        // The cache keys of the tokens taken so far, open addressing (item + 1, 0 for empty).
        var seenCapacity = 16
        while seenCapacity < 2 * count { seenCapacity <<= 1 }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: count + seenCapacity) { int32s in
            let slots = UnsafeMutableBufferPointer(rebasing: int32s[0..<count])
            let seen = UnsafeMutableBufferPointer(rebasing: int32s[count...])
            seen.initialize(repeating: 0)
            // Whether `key` is new to the batch (and now seen): a token met again in the same
            // batch finds its first copy's entry in the signature cache when check 12 reaches it,
            // as it did before this pass.
            func isFirstInBatch(_ key: KeyedHash.Digest, _ index: Int) -> Bool {
                var slot = Int(truncatingIfNeeded: key.low) & (seenCapacity - 1)
                while seen[slot] != 0 {
                    if states[Int(seen[slot]) - 1].signatureCacheKey == key { return false }
                    slot = (slot + 1) & (seenCapacity - 1)
                }
                seen[slot] = Int32(index + 1)
                return true
            }
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * count) { sValues in
                withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: count) { tables in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { messageEnds in
                        signedMessages.removeAll()
                        var signatures = 0
                        var ed25519 = 0
                        for index in 0..<count {
                            slots[index] = -1
                            guard isRequest[index], let keyIndex = states[index].signatureKey,
                                states[index].parsed != nil
                            else { continue }
                            if let cacheKey = states[index].signatureCacheKey {
                                if snapshot.signatureCache!.contains(cacheKey) {
                                    // Check 12 answered by the cache, as `SignatureCheck` would answer it.
                                    states[index].signatureKey = nil
                                    signatureCacheHits &+= 1
                                    continue
                                }
                                guard isFirstInBatch(cacheKey, index) else { continue }
                            }
                            switch facts[keyIndex].type {
                            case .p256:
                                // Read through `!` in place: a `let` binding would take a reference count.
                                let copied = states[index].parsed!.withBytes(states[index].parsed!.signature) {
                                    signature in
                                    guard signature.count == 64 else { return false }
                                    let s = UnsafeRawPointer(signature.baseAddress! + 32)
                                    let to = sValues.baseAddress! + 4 * signatures
                                    for word in 0..<4 {
                                        to[word] = s.loadUnaligned(fromByteOffset: 8 * word, as: UInt64.self)
                                    }
                                    return true
                                }
                                if copied {
                                    slots[index] = Int32(signatures)
                                    signatures += 1
                                }
                            case .ed25519:
                                // The key's table, lent (the key set holds it for the batch).
                                guard states[index].parsed!.signature.count == 64,
                                    let table = facts[keyIndex].ed25519!._withUnsafeGuaranteedRef({
                                        $0.lazyTable.withTable { UnsafeRawPointer($0.handle) }
                                    })
                                else { continue }
                                // The signature, then the signed message, copied back to back.
                                requests.withToken(index) { token in
                                    states[index].parsed!.withBytes(states[index].parsed!.signature) {
                                        signedMessages.append($0)
                                    }
                                    states[index].parsed!.withSignedMessage(compact: token) {
                                        signedMessages.append($0)
                                    }
                                }
                                tables[ed25519] = table
                                messageEnds[ed25519] = signedMessages.count
                                slots[index] = Int32(-2 - ed25519)
                                ed25519 += 1
                            }
                        }
                        // One ES256 signature gains nothing from sharing its inversion.
                        if signatures == 1 {
                            for index in 0..<count where slots[index] == 0 { slots[index] = -1 }
                            signatures = 0
                        }
                        guard signatures > 0 || ed25519 > 0 else {
                            return body(BatchSignatures(slots: nil, inverses: nil, verdicts: nil))
                        }
                        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * signatures) { inverses in
                            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ed25519) { verdicts in
                                if signatures > 0 {
                                    sValues.withMemoryRebound(to: UInt8.self) {
                                        tv_p256_table_inverses($0.baseAddress, signatures, inverses.baseAddress)
                                    }
                                }
                                if ed25519 > 0 {
                                    verifyEd25519(
                                        ed25519, tables: tables.baseAddress!, messageEnds: messageEnds.baseAddress!,
                                        into: verdicts.baseAddress!)
                                }
                                return body(
                                    BatchSignatures(
                                        slots: slots.baseAddress, inverses: UnsafePointer(inverses.baseAddress),
                                        verdicts: UnsafePointer(verdicts.baseAddress)))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The verdicts of the `count` Ed25519 signatures in `signedMessages` (each signature then
    /// its message; the `messageEnds`), under `tables`.
    private func verifyEd25519(
        _ count: Int, tables: UnsafeMutablePointer<UnsafeRawPointer?>, messageEnds: UnsafeMutablePointer<Int>,
        into verdicts: UnsafeMutablePointer<UInt8>
    ) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: count) { signatures in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: count) { messages in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { lengths in
                    let bytes = UnsafePointer(signedMessages.bytes)
                    var start = 0
                    for index in 0..<count {
                        signatures[index] = bytes + start
                        messages[index] = bytes + start + 64
                        lengths[index] = messageEnds[index] - start - 64
                        start = messageEnds[index]
                    }
                    tv_ed25519_table_verify_many(
                        tables, messages.baseAddress, lengths.baseAddress, signatures.baseAddress, count, verdicts)
                }
            }
        }
    }
}

/// Bytes appended back to back into one buffer that grows and is kept (a worker's, reused batch
/// after batch). One grown past ``keptCapacity`` (a batch of long tokens; a batch of 256 typical
/// ones takes about 100 KB) is given back when it is emptied, so a worker does not hold a batch's
/// worth of long lines for the rest of its run.
final class ByteScratch {
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// The bytes in use.
    private(set) var count = 0

    /// The capacity made at first.
    static let initialCapacity = 16 * 1024
    /// The most capacity kept when the buffer is emptied.
    static let keptCapacity = 1 << 20

    init() {
        capacity = Self.initialCapacity
        bytes = .allocate(capacity: capacity)
    }

    deinit { bytes.deallocate() }

    /// Empties the buffer, given back down to ``initialCapacity`` if it grew past
    /// ``keptCapacity``.
    @inline(__always)
    func removeAll() {
        count = 0
        if capacity > Self.keptCapacity {
            bytes.deallocate()
            capacity = Self.initialCapacity
            bytes = .allocate(capacity: capacity)
        }
    }

    /// Appends `more`.
    @inline(__always)
    func append(_ more: UnsafeBufferPointer<UInt8>) {
        if count + more.count > capacity { grow(to: count + more.count) }
        if more.count > 0 { (bytes + count).initialize(from: more.baseAddress!, count: more.count) }
        count += more.count
    }

    private func grow(to needed: Int) {
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(needed, 2 * capacity))
        larger.initialize(from: bytes, count: count)
        bytes.deallocate()
        bytes = larger
        capacity = max(needed, 2 * capacity)
    }
}

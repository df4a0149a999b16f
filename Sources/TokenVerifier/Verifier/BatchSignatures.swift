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
        let scratch = signatureScratch
        scratch.prepare(count: count)
        signedMessages.removeAll()
        for index in 0..<count {
            scratch.slots[index] = -1
            guard isRequest[index], states[index].parsed != nil, let facts = states[index].signatureFacts(snapshot)
            else {
                continue
            }
            if let cacheKey = states[index].signatureCacheKey {
                if snapshot.signatureCache!.contains(cacheKey) {
                    // Check 12 answered by the cache, as `SignatureCheck` would answer it.
                    states[index].signatureKey = nil
                    states[index].signatureChain = nil
                    signatureCacheHits &+= 1
                    continue
                }
                guard scratch.isFirstInBatch(cacheKey, index, states) else { continue }
            }
            switch facts.type {
            case .p256: scratch.takeES256(index, states)
            case .ed25519: takeEd25519(index, requests, states, key: facts, scratch)
            }
        }
        // One ES256 signature gains nothing from sharing its inversion.
        if scratch.es256 == 1 {
            for index in 0..<count where scratch.slots[index] == 0 { scratch.slots[index] = -1 }
            scratch.es256 = 0
        }
        guard scratch.es256 > 0 || scratch.ed25519 > 0 else {
            return body(BatchSignatures(slots: nil, inverses: nil, verdicts: nil))
        }
        if scratch.es256 > 0 {
            scratch.sValues.withMemoryRebound(to: UInt8.self, capacity: 32 * scratch.es256) {
                tv_p256_table_inverses($0, scratch.es256, scratch.inverses)
            }
        }
        if scratch.ed25519 > 0 {
            verifyEd25519(
                scratch.ed25519, tables: scratch.tables, messageEnds: scratch.messageEnds, into: scratch.verdicts)
        }
        return body(
            BatchSignatures(
                slots: scratch.slots, inverses: UnsafePointer(scratch.inverses),
                verdicts: UnsafePointer(scratch.verdicts)))
    }

    /// Takes item `index`'s Ed25519 signature into the batch when its key's table is ready: the
    /// signature, then the signed message, copied back to back into `signedMessages`.
    @inline(__always)
    private func takeEd25519(
        _ index: Int, _ requests: some BatchRequests, _ states: UnsafeMutablePointer<Prepared>, key: KeyFacts,
        _ scratch: BatchSignatureScratch
    ) {
        // The key's table, lent (the key set, or the token's chain key, holds it for the batch).
        guard states[index].parsed!.signature.count == 64,
            let table = key.ed25519!._withUnsafeGuaranteedRef({
                $0.lazyTable.withTable { UnsafeRawPointer($0.handle) }
            })
        else { return }
        requests.withToken(index) { token in
            states[index].parsed!.withBytes(states[index].parsed!.signature) { signedMessages.append($0) }
            states[index].parsed!.withSignedMessage(compact: token) { signedMessages.append($0) }
        }
        scratch.tables[scratch.ed25519] = table
        scratch.messageEnds[scratch.ed25519] = signedMessages.count
        scratch.slots[index] = Int32(-2 - scratch.ed25519)
        scratch.ed25519 += 1
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

/// The buffers of a batch's signature pass (``VerificationWorker/withBatchSignatures(_:_:_:snapshot:_:)``),
/// kept by a worker and reused batch after batch: per item its slot, per ES256 signature its s and
/// s⁻¹ (four limbs each), per Ed25519 signature its key's table and where its message ends, and
/// the cache keys seen so far (open addressing). Room grown past ``keptItems`` items (a batch far
/// larger than the stream's 256) is given back at the next batch.
final class BatchSignatureScratch {
    private(set) var capacity = 0
    private(set) var slots: UnsafeMutablePointer<Int32>
    private var seen: UnsafeMutablePointer<Int32>
    private var seenMask = 0
    private(set) var sValues: UnsafeMutablePointer<UInt64>
    private(set) var inverses: UnsafeMutablePointer<UInt64>
    private(set) var tables: UnsafeMutablePointer<UnsafeRawPointer?>
    private(set) var messageEnds: UnsafeMutablePointer<Int>
    private(set) var verdicts: UnsafeMutablePointer<UInt8>
    /// The ES256 and Ed25519 signatures taken in this batch.
    var es256 = 0
    var ed25519 = 0

    /// The most items whose room is kept from one batch to the next.
    static let keptItems = 4096

    init() {
        (slots, seen, sValues, inverses) = (
            .allocate(capacity: 0), .allocate(capacity: 0), .allocate(capacity: 0), .allocate(capacity: 0)
        )
        (tables, messageEnds, verdicts) = (.allocate(capacity: 0), .allocate(capacity: 0), .allocate(capacity: 0))
    }

    deinit { deallocate() }

    /// Room for a batch of `count` items, nothing taken, no key seen.
    @inline(__always)
    func prepare(count: Int) {
        if count > capacity || (capacity > Self.keptItems && count <= Self.keptItems) { allocate(count) }
        seen.initialize(repeating: 0, count: seenMask + 1)
        es256 = 0
        ed25519 = 0
    }

    /// Whether `key` is new to the batch (and now seen): a token met again in the same batch
    /// finds its first copy's entry in the signature cache when check 12 reaches it.
    @inline(__always)
    func isFirstInBatch(
        _ key: KeyedHash.Digest, _ index: Int, _ states: UnsafeMutablePointer<VerificationWorker.Prepared>
    ) -> Bool {
        var slot = Int(truncatingIfNeeded: key.low) & seenMask
        while seen[slot] != 0 {
            if states[Int(seen[slot]) - 1].signatureCacheKey == key { return false }
            slot = (slot + 1) & seenMask
        }
        seen[slot] = Int32(index + 1)
        return true
    }

    /// Takes item `index`'s ES256 s (when its signature is 64 bytes) for the shared inversion.
    @inline(__always)
    func takeES256(_ index: Int, _ states: UnsafeMutablePointer<VerificationWorker.Prepared>) {
        // Read through `!` in place: a `let` binding would take a reference count.
        let copied = states[index].parsed!.withBytes(states[index].parsed!.signature) { signature in
            guard signature.count == 64 else { return false }
            let s = UnsafeRawPointer(signature.baseAddress! + 32)
            let to = sValues + 4 * es256
            for word in 0..<4 { to[word] = s.loadUnaligned(fromByteOffset: 8 * word, as: UInt64.self) }
            return true
        }
        if copied {
            slots[index] = Int32(es256)
            es256 += 1
        }
    }

    private func allocate(_ count: Int) {
        deallocate()
        capacity = count
        var seenCapacity = 16
        while seenCapacity < 2 * count { seenCapacity <<= 1 }
        seenMask = seenCapacity - 1
        slots = .allocate(capacity: count)
        seen = .allocate(capacity: seenCapacity)
        sValues = .allocate(capacity: 4 * count)
        inverses = .allocate(capacity: 4 * count)
        tables = .allocate(capacity: count)
        messageEnds = .allocate(capacity: count)
        verdicts = .allocate(capacity: count)
    }

    private func deallocate() {
        slots.deallocate()
        seen.deallocate()
        sValues.deallocate()
        inverses.deallocate()
        tables.deallocate()
        messageEnds.deallocate()
        verdicts.deallocate()
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

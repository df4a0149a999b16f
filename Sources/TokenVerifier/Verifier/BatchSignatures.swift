internal import CTokenCrypto
internal import CTokenEd25519

/// What a batch's signature pass worked out for its tokens before their check 12
/// (``VerificationWorker/withBatchSignatures(_:_:_:snapshot:_:)``): an ES256 token's s⁻¹ mod n,
/// or an Ed25519 token's verdict, or an ES256 token's verdict from the wide path.
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
    /// - ES256 with its key's table ready, on the wide path (``P256KeyTable/isWide``): the
    ///   verdicts, verified together (`tv_p256_table_verify_many`: eight at a time with AVX-512
    ///   IFMA, keys mixed, one inversion of s for every 64), which check 12 then takes as its own.
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
            case .p256:
                if P256KeyTable.isWide, takeES256Wide(index, requests, states, snapshot: snapshot, scratch) { break }
                scratch.takeES256(index, states)
            case .ed25519: takeEd25519(index, requests, states, key: facts, scratch)
            }
        }
        // One ES256 signature gains nothing from sharing its inversion.
        if scratch.es256 == 1 {
            for index in 0..<count where scratch.slots[index] == 0 { scratch.slots[index] = -1 }
            scratch.es256 = 0
        }
        guard scratch.es256 > 0 || scratch.ed25519 > 0 || scratch.es256Wide > 0 else {
            return body(BatchSignatures(slots: nil, inverses: nil, verdicts: nil))
        }
        if scratch.es256 > 0 {
            scratch.sValues.withMemoryRebound(to: UInt8.self, capacity: 32 * scratch.es256) {
                tv_p256_table_inverses($0, scratch.es256, scratch.inverses)
            }
        }
        if scratch.es256Wide > 0 { verifyES256Wide(scratch, items: count) }
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

    /// Takes item `index`'s ES256 signature into the batch's wide verify when its key's table is
    /// ready (the key set's key or the token's chain key, through this worker's verify context):
    /// the signature, then the signed message, copied back to back into the scratch's
    /// `es256Messages`. False when it is not taken (then it shares the batch's inversion instead).
    @inline(__always)
    private func takeES256Wide(
        _ index: Int, _ requests: some BatchRequests, _ states: UnsafeMutablePointer<Prepared>,
        snapshot: VerifierSnapshot, _ scratch: BatchSignatureScratch
    ) -> Bool {
        guard states[index].parsed!.signature.count == 64 else { return false }
        let context: P256VerifyContext
        if let keyIndex = states[index].signatureKey {
            context = p256Context(for: keyIndex, in: snapshot)
        } else if let chain = states[index].signatureChain {
            context = chain._withUnsafeGuaranteedRef { p256Context(for: $0) }
        } else {
            return false
        }
        // The table stays alive with its key, which the key set (or the held chain) keeps for the batch.
        guard let table = context.tableForBatch else { return false }
        let messages = scratch.es256Messages
        requests.withToken(index) { token in
            states[index].parsed!.withBytes(states[index].parsed!.signature) { messages.append($0) }
            states[index].parsed!.withSignedMessage(compact: token) { messages.append($0) }
        }
        scratch.takeES256Wide(index, table: UnsafeRawPointer(table.handle), messageEnd: messages.count)
        return true
    }

    /// The verdicts of the batch's ES256 signatures taken for the wide path, into the scratch's
    /// verdicts after the Ed25519 ones' room.
    private func verifyES256Wide(_ scratch: BatchSignatureScratch, items: Int) {
        let count = scratch.es256Wide
        guard let tableScratch = scratch.p256TableScratch() else {
            // No C scratch (out of memory): check 12 verifies each of them alone instead.
            let firstWide = Int32(-2 - scratch.capacity)
            for index in 0..<items where scratch.slots[index] <= firstWide { scratch.slots[index] = -1 }
            return
        }
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: count) { signatures in
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: count) { messages in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { lengths in
                    let bytes = UnsafePointer(scratch.es256Messages.bytes)
                    var start = 0
                    for index in 0..<count {
                        let end = scratch.es256MessageEnds[index]
                        signatures[index] = bytes + start
                        messages[index] = bytes + start + 64
                        lengths[index] = end - start - 64
                        start = end
                    }
                    scratch.es256Tables.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: count) {
                        tables in
                        tv_p256_table_verify_many(
                            tables, tableScratch, messages.baseAddress, lengths.baseAddress, signatures.baseAddress,
                            count, scratch.verdicts + scratch.capacity)
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

/// The buffers of a batch's signature pass (``VerificationWorker/withBatchSignatures(_:_:_:snapshot:_:)``),
/// kept by a worker and reused batch after batch: per item its slot, per ES256 signature its s and
/// s⁻¹ (four limbs each), per Ed25519 signature its key's table and where its message ends, per
/// ES256 signature on the wide path the same (its signature and message in `es256Messages`), and
/// the cache keys seen so far (open addressing). Verdicts: the Ed25519 ones from place 0, the
/// ES256 wide ones from place `capacity`. Room grown past ``keptItems`` items (a batch far
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
    private(set) var es256Tables: UnsafeMutablePointer<UnsafeRawPointer?>
    private(set) var es256MessageEnds: UnsafeMutablePointer<Int>
    /// The ES256 wide path's signatures and signed messages, back to back.
    let es256Messages = ByteScratch()
    /// The C scratch of `tv_p256_table_verify_many` (digest context, numbers), made on first use.
    private var tableScratch: UnsafeMutableRawPointer?
    /// The ES256 and Ed25519 signatures taken in this batch (ES256: for the shared inversion, and
    /// for the wide path).
    var es256 = 0
    var ed25519 = 0
    var es256Wide = 0

    /// The most items whose room is kept from one batch to the next.
    static let keptItems = 4096

    init() {
        (slots, seen, sValues, inverses) = (
            .allocate(capacity: 0), .allocate(capacity: 0), .allocate(capacity: 0), .allocate(capacity: 0)
        )
        (tables, messageEnds, verdicts) = (.allocate(capacity: 0), .allocate(capacity: 0), .allocate(capacity: 0))
        (es256Tables, es256MessageEnds) = (.allocate(capacity: 0), .allocate(capacity: 0))
    }

    deinit {
        deallocate()
        tv_p256_table_scratch_free(tableScratch)
    }

    /// The C scratch for `tv_p256_table_verify_many`, made once (nil when it cannot be).
    func p256TableScratch() -> UnsafeMutableRawPointer? {
        if tableScratch == nil { tableScratch = tv_p256_table_scratch_new() }
        return tableScratch
    }

    /// Takes item `index`'s ES256 signature for the wide path: its key's table and where its
    /// signed message ends in `es256Messages`.
    @inline(__always)
    func takeES256Wide(_ index: Int, table: UnsafeRawPointer, messageEnd: Int) {
        es256Tables[es256Wide] = table
        es256MessageEnds[es256Wide] = messageEnd
        slots[index] = Int32(-2 - (capacity + es256Wide))
        es256Wide += 1
    }

    /// Room for a batch of `count` items, nothing taken, no key seen.
    @inline(__always)
    func prepare(count: Int) {
        if count > capacity || (capacity > Self.keptItems && count <= Self.keptItems) { allocate(count) }
        seen.initialize(repeating: 0, count: seenMask + 1)
        es256 = 0
        ed25519 = 0
        es256Wide = 0
        es256Messages.removeAll()
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
        verdicts = .allocate(capacity: 2 * count)
        es256Tables = .allocate(capacity: count)
        es256MessageEnds = .allocate(capacity: count)
    }

    private func deallocate() {
        slots.deallocate()
        seen.deallocate()
        sValues.deallocate()
        inverses.deallocate()
        tables.deallocate()
        messageEnds.deallocate()
        verdicts.deallocate()
        es256Tables.deallocate()
        es256MessageEnds.deallocate()
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

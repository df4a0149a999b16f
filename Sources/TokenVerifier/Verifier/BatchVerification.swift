/// The requests of one batch, as bytes the caller owns: the line protocol's request lines (the
/// token and context are ranges of each line, so nothing is copied) or the public API's
/// ``VerificationRequest`` values. An item that is not a request (a malformed line) is skipped
/// by the engine and answered by the caller.
///
/// The bytes are lent as Unsafe buffers for the length of one call: the line protocol's token and
/// context strings are ranges of the line it read, and lending them in place is what keeps a
/// line free of any copy or allocation of its own on the way to the checks.
package protocol BatchRequests {
    /// The number of items.
    var count: Int { get }
    /// Calls `body` once with item `index`'s token and request context and returns true, or
    /// returns false without calling it when the item is not a request.
    func withRequest(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> Void) -> Bool
    /// Calls `body` with item `index`'s token (only asked of an item that is a request).
    func withToken(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
    /// Whether the tokens' bytes stay where they are for the whole batch (the buffers lent by
    /// ``withRequest(_:_:)`` may then be used after it returns, until the batch ends).
    var tokensStayPut: Bool { get }
}

extension BatchRequests {
    var tokensStayPut: Bool { false }
}

extension VerificationWorker {
    /// The batch engine: verifies `requests` against the snapshot of the live state in force and
    /// calls `answer` with each item's verdict (nil: not a request), in order.
    func verify(batch requests: some BatchRequests, _ answer: (Int, VerificationResult?) -> Void) {
        verify(batch: requests, against: core.snapshot, answer)
    }

    /// The batch engine: verifies `requests` against `snapshot` (one the caller took from this
    /// worker's verifier, ``Verifier/snapshot``) and calls `answer` with each item's verdict
    /// (nil: not a request), in order.
    ///
    /// Three passes: parsing and checks 1–11b for every item, then the signatures one after
    /// another (the crypto library's code and tables stay in cache from one verify to the next,
    /// and a batch's signatures share their inversions: ``withBatchSignatures``), then the
    /// verdicts. Each item's state lives in one slot of a temporary buffer and is
    /// changed in place between the passes.
    package func verify(
        batch requests: some BatchRequests, against snapshot: VerifierSnapshot,
        _ answer: (Int, VerificationResult?) -> Void
    ) {
        let count = requests.count
        guard count > 0 else { return }
        defer { releaseHeldChains() }
        let snapshot = adopt(snapshot)
        let audit = core.options.audit
        withUnsafeTemporaryAllocation(of: Prepared.self, capacity: count) { buffer in
            withUnsafeTemporaryAllocation(of: Bool.self, capacity: count) { isRequest in
                let states = buffer.baseAddress!
                for index in 0..<count { (states + index).initialize(to: Prepared(audit: audit)) }
                let lookingAhead = snapshot.signatureCache != nil && parsedTokens != nil
                if lookingAhead { lookAhead(requests, states, isRequest, cache: snapshot.signatureCache!) }
                for index in 0..<count where !lookingAhead || isRequest[index] {
                    let state = states + index
                    let isItem = requests.withRequest(index) { token, context in
                        prepare(token: token, context: context, snapshot: snapshot, into: &state.pointee)
                    }
                    if !lookingAhead { isRequest[index] = isItem }
                }
                withBatchSignatures(requests, states, isRequest, snapshot: snapshot) { shared in
                    for index in 0..<count where isRequest[index] && states[index].hasSignatureToCheck {
                        let state = states + index
                        if let verdict = shared.verdict(index) {
                            // Verified already: check 12 needs no token bytes.
                            checkSignature(
                                &state.pointee, token: .init(start: nil, count: 0), snapshot: snapshot, verdict: verdict
                            )
                            continue
                        }
                        requests.withToken(index) {
                            checkSignature(
                                &state.pointee, token: $0, snapshot: snapshot, inverse: shared.inverse(index))
                        }
                    }
                }
                for index in 0..<count {
                    // The slot's state moves into the verdict: its references are handed on, not copied.
                    let result = isRequest[index] ? (states + index).move().result() : nil
                    if !isRequest[index] { (states + index).deinitialize(count: 1) }
                    answer(index, result)
                }
            }
        }
    }
}

extension VerificationWorker {
    /// The batch's digests and parse cache lookups, made ahead of its checks: every token's
    /// digest first (all in one call where the tokens stay put, eight side by side), asking for
    /// its parse cache slot; then each slot read (by now in the processor's caches), asking for
    /// the parse it keeps; `prepare` then finds both at hand instead of waiting on memory twice a
    /// token. Fills `isRequest`.
    private func lookAhead(
        _ requests: some BatchRequests, _ states: UnsafeMutablePointer<Prepared>,
        _ isRequest: UnsafeMutableBufferPointer<Bool>, cache: SignatureCache
    ) {
        let parsedTokens = parsedTokens!
        let count = isRequest.count
        if requests.tokensStayPut {
            // The tokens' bytes stay put: every digest in one call, many side by side.
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: count) { starts in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { counts in
                    withUnsafeTemporaryAllocation(of: KeyedHash.Digest.self, capacity: count) { digests in
                        var tokens = 0
                        for index in 0..<count {
                            isRequest[index] = requests.withRequest(index) { token, _ in
                                starts[tokens] = token.baseAddress
                                counts[tokens] = token.count
                                tokens += 1
                            }
                        }
                        cache.digests(
                            count: tokens, starts: UnsafePointer(starts.baseAddress!),
                            counts: UnsafePointer(counts.baseAddress!), into: digests.baseAddress!)
                        var next = 0
                        for index in 0..<count where isRequest[index] {
                            states[index].digest = digests[next]
                            parsedTokens.prefetch(digests[next])
                            next += 1
                        }
                    }
                }
            }
        } else {
            for index in 0..<count {
                isRequest[index] = requests.withRequest(index) { token, _ in
                    let digest = cache.digest(of: token)
                    states[index].digest = digest
                    parsedTokens.prefetch(digest)
                }
            }
        }
        for index in 0..<count where isRequest[index] {
            parsedTokens.prefetchToken(states[index].digest!)
        }
    }
}

/// A chunk of the public API's requests, as a batch.
struct RequestChunk: BatchRequests {
    let requests: ArraySlice<VerificationRequest>

    var count: Int { requests.count }

    func withRequest(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> Void) -> Bool {
        let request = requests[requests.startIndex + index]
        withToken(index) { token in request.context.withBytes { body(token, $0) } }
        return true
    }

    func withToken(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var token = requests[requests.startIndex + index].token
        token.withUTF8 { body($0) }
    }
}

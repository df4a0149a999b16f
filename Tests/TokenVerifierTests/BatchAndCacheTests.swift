import Dispatch
import TestSupport
import Testing
import TokenConcurrency
import TokenTools

@testable import TokenVerifier

@Suite struct BatchAndCacheTests {
    let fixtures = Fixtures()

    func mixedRequests(_ count: Int) -> [VerificationRequest] {
        let tokens = [
            Fixtures.token(fixtures.ed), Fixtures.token(fixtures.es), Fixtures.token(fixtures.edDSA),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1"])),
            replacingSegment(Fixtures.token(fixtures.es), 1, with: b64(Fixtures.claims(["sub": "\"x\""]))),
            "garbage",
        ]
        return (0..<count).map { index in
            VerificationRequest(token: tokens[index % tokens.count], command: index % 7 == 0 ? "horn" : "unlock")
        }
    }

    @Test func batchMatchesOneByOneInOrder() {
        let verifier = fixtures.verifier()
        let requests = mixedRequests(3000)
        let batch = verifier.verify(requests, threads: 4, chunkSize: 37)
        #expect(batch.count == requests.count)
        for (index, request) in requests.enumerated() {
            #expect(batch[index].reason == verifier.verify(request).reason, "request \(index)")
        }
        #expect(batch.filter(\.isValid).count > 1000)
        #expect(verifier.verify([]).isEmpty)
    }

    @Test func swappingRevocationsDuringABatchNeverMixesSnapshots() throws {
        // Snapshot A revokes the token, snapshot B its device: every request must be refused by
        // one or the other; a check that read A for one lookup and B for another would pass.
        let byToken = try RevocationList.parse(Array(#"{"jti":"t-1"}"#.utf8))
        let byDevice = try RevocationList.parse(Array(#"{"sub":"phone-1"}"#.utf8))
        let verifier = fixtures.verifier(
            revocations: byToken, options: VerificationOptions(checkTime: Fixtures.now, signatureCacheSlots: 1024))
        let requests = Array(repeating: VerificationRequest(token: Fixtures.token(fixtures.ed)), count: 20_000)
        let done = UncheckedSendable(DispatchSemaphore(value: 0))
        let stop = LockedValue(false)
        DispatchQueue.global().async {
            var flip = false
            while !stop.withLock({ $0 }) {
                verifier.replaceRevocations(flip ? byToken : byDevice)
                flip.toggle()
            }
            done.value.signal()
        }
        let results = verifier.verify(requests, threads: 2, chunkSize: 64)
        stop.withLock { $0 = true }
        done.value.wait()
        let reasons = Set(results.map(\.reason))
        #expect(reasons.isSubset(of: [.revokedToken, .revokedDevice]), "\(reasons)")
    }

    @Test func cacheHoldsOnlyTokensThatVerified() throws {
        let verifier = fixtures.verifier()
        let cache = try #require(verifier.core.snapshot.signatureCache)
        let good = Fixtures.token(fixtures.es)
        let forged = replacingSegment(good, 1, with: b64(Fixtures.claims(["cmd": #"["engine_start"]"#])))
        let keyIndex = try #require(verifier.keys.keys.firstIndex { $0.keyID == "es-1" })
        func digest(_ token: String) -> KeyedHash.Digest {
            let snapshot = verifier.core.snapshot
            return snapshot.signatureCacheKey(
                token: Array(token.utf8).withUnsafeBufferPointer { cache.digest(of: $0) }, keyIndex: keyIndex)
        }
        #expect(!cache.contains(digest(good)))
        #expect(verifier.verify(VerificationRequest(token: good)).isValid)
        #expect(cache.contains(digest(good)))
        for _ in 0..<3 {
            #expect(verifier.verify(VerificationRequest(token: forged)).reason == .badSignature)
        }
        #expect(!cache.contains(digest(forged)))
        // A cached token still goes through every other check.
        #expect(verifier.verify(VerificationRequest(token: good, command: "horn")).reason == .commandNotPermitted)
        #expect(verifier.verify(VerificationRequest(token: good, checkTime: 1_900_000_000)).reason == .expired)
    }

    @Test func repeatedTokensReuseTheirParseAndStillRunEveryCheck() throws {
        let verifier = fixtures.verifier()
        let worker = verifier.makeWorker()
        let good = Fixtures.token(fixtures.ed)
        let first = worker.verify(VerificationRequest(token: good))
        #expect(!worker.keepsParse(of: good), "a token seen once is not kept")
        let again = worker.verify(VerificationRequest(token: good))
        #expect(worker.keepsParse(of: good), "kept at its second sighting")
        // Kept before this verification: parsed no more, taken from the cache.
        let third = worker.verify(VerificationRequest(token: good))
        #expect(first.isValid && again.isValid && third.isValid)
        #expect(again.claims == first.claims && third.header == first.header && third.claims == first.claims)
        // Same claims, another signature: a different token, parsed and checked on its own.
        let other = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["jti": "\"t-2\""]))
        let resigned = replacingSegment(good, 2, with: String(other.split(separator: ".")[2]))
        #expect(worker.verify(VerificationRequest(token: resigned)).reason == .badSignature)
        #expect(!worker.keepsParse(of: resigned))
        #expect(worker.verify(VerificationRequest(token: resigned)).reason == .badSignature)
        // Context and time are checked on every line, parse reused or not.
        #expect(worker.keepsParse(of: good))
        #expect(worker.verify(VerificationRequest(token: good, device: "phone-9")).reason == .wrongDevice)
        #expect(worker.verify(VerificationRequest(token: good, checkTime: 1_900_000_000)).reason == .expired)
        #expect(worker.verify(VerificationRequest(token: good)).isValid)
        // The resigned token was kept at its second sighting too (a parse depends on the bytes
        // alone) and still fails its signature check when taken from the cache.
        #expect(worker.keepsParse(of: resigned) && worker.keepsParse(of: good))
        #expect(worker.verify(VerificationRequest(token: resigned)).reason == .badSignature)
    }

    @Test func parsedTokenCacheFindsOnlyWhatItHolds() throws {
        let cache = ParsedTokenCache(entries: 4)
        let token = try Array(Fixtures.token(fixtures.ed).utf8).withUnsafeBufferPointer {
            try ParsedToken.parse($0).get()
        }
        let digest = KeyedHash.Digest(low: 1, high: 2)
        #expect(cache.lookup(digest) == nil)
        #expect(!cache.note(token, for: digest), "the first sighting notes the digest only")
        #expect(cache.lookup(digest) == nil)
        #expect(cache.note(token, for: digest), "the second keeps the parse")
        #expect(cache.lookup(digest).map(TokenClaims.init) == TokenClaims(token))
        #expect(cache.lookup(KeyedHash.Digest(low: 9, high: 2)) == nil, "same slot, another digest")
        #expect(cache.lookup(KeyedHash.Digest(low: 1, high: 3)) == nil)
        #expect(!cache.note(token, for: KeyedHash.Digest(low: 9, high: 2)), "another digest in the slot is only noted")
        #expect(cache.lookup(digest) == nil, "and evicts the kept parse")
    }

    @Test func aParseLargerThanTheCapIsNeverKept() throws {
        let cache = ParsedTokenCache(entries: 4)
        let long = String(repeating: "p", count: ParsedTokenCache.maxKeptStorageBytes)
        let claims = Fixtures.claims(["sub": "\"\(long)\""])
        let token = try Array(Fixtures.token(fixtures.ed, claims: claims).utf8).withUnsafeBufferPointer {
            try ParsedToken.parse($0).get()
        }
        #expect(token.storage.count > ParsedTokenCache.maxKeptStorageBytes)
        let digest = KeyedHash.Digest(low: 1, high: 2)
        #expect(!cache.note(token, for: digest))
        #expect(!cache.note(token, for: digest), "not at its second sighting either")
        #expect(cache.lookup(digest) == nil)
    }

    @Test func cacheCanBeTurnedOff() {
        let verifier = fixtures.verifier(options: VerificationOptions(checkTime: Fixtures.now, signatureCacheSlots: 0))
        #expect(verifier.core.snapshot.signatureCache == nil)
        #expect(verifier.verify(VerificationRequest(token: Fixtures.token(fixtures.ed))).isValid)
    }

    @Test func aRotationNeverAnswersFromAKeyThatLeftAndKeepsUnchangedKeysWarm() throws {
        let verifier = fixtures.verifier()
        let edToken = Fixtures.token(fixtures.ed)
        let esToken = Fixtures.token(fixtures.es)
        #expect(verifier.verify(VerificationRequest(token: edToken)).isValid)
        #expect(verifier.verify(VerificationRequest(token: esToken)).isValid)
        let cache = try #require(verifier.core.snapshot.signatureCache)
        func cached(_ token: String, kid: String) -> Bool {
            let snapshot = verifier.core.snapshot
            guard let index = snapshot.keys.keys.firstIndex(where: { $0.keyID == kid }) else { return false }
            let digest = Array(token.utf8).withUnsafeBufferPointer { cache.digest(of: $0) }
            return cache.contains(snapshot.signatureCacheKey(token: digest, keyIndex: index))
        }
        #expect(cached(esToken, kid: "es-1"))
        // ed-1 gets new key material, es-1 stays as it was, eddsa-1 leaves the set.
        let newEd = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
        verifier.replaceKeys(try KeySet(keys: [try Fixtures.publicKey(newEd), try Fixtures.publicKey(fixtures.es)]))
        #expect(
            verifier.verify(VerificationRequest(token: edToken)).reason == .badSignature,
            "verified with the new key, not the cache")
        #expect(cached(esToken, kid: "es-1"), "an unchanged key's entries stay warm")
        #expect(verifier.verify(VerificationRequest(token: esToken)).isValid)
        #expect(verifier.verify(VerificationRequest(token: Fixtures.token(fixtures.edDSA))).reason == .unknownKey)
        #expect(verifier.verify(VerificationRequest(token: Fixtures.token(newEd))).isValid)
    }

    @Test func verifierIsReleasedAfterUse() {
        weak var released: Verifier?
        do {
            let verifier = fixtures.verifier()
            _ = verifier.verify(VerificationRequest(token: Fixtures.token(fixtures.es)))  // pools a worker
            _ = verifier.verify(mixedRequests(600), threads: 2)
            released = verifier
            #expect(released != nil)
        }
        #expect(released == nil, "the verifier and its worker pool form a cycle")
    }

    @Test func tokensSharingASetDoNotEvictEachOther() {
        // 16 slots: 4 sets of 4. Four digests of the same set all stay; a fifth takes one slot.
        let cache = SignatureCache(slots: 16)
        let sameSet = (0..<5).map { KeyedHash.Digest(low: 2 | UInt64($0) << 8, high: UInt64($0) << 62 | 7) }
        for digest in sameSet.prefix(4) { cache.insert(digest) }
        #expect(sameSet.prefix(4).allSatisfy { cache.contains($0) })
        cache.insert(sameSet[4])
        #expect(cache.contains(sameSet[4]))
        #expect(sameSet.prefix(4).filter { cache.contains($0) }.count == 3)
        #expect(!cache.contains(KeyedHash.Digest(low: 2 | 9 << 8, high: 7)), "never inserted")
        #expect(!cache.contains(KeyedHash.Digest(low: 3, high: 7)), "another set, never inserted")
    }

    @Test func concurrentCacheUseNeverReportsAFalseHit() {
        let cache = SignatureCache(slots: 64)
        let digests = (0..<4096).map {
            KeyedHash.Digest(low: UInt64($0 % 64) | UInt64($0) << 32, high: UInt64($0) &* 0x9E37_79B9_7F4A_7C15)
        }
        let inserted = UncheckedSendable(digests.filter { $0.low & (1 << 32) == 0 })
        let neverInserted = UncheckedSendable(digests.filter { $0.low & (1 << 32) != 0 })
        let falseHits = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<200 {
                if worker % 2 == 0 {
                    for digest in inserted.value { cache.insert(digest) }
                } else {
                    for digest in neverInserted.value where cache.contains(digest) { falseHits.withLock { $0 += 1 } }
                }
                _ = round
            }
        }
        #expect(falseHits.withLock { $0 } == 0)
    }
}

extension VerificationWorker {
    /// Whether this worker's parse cache holds `token`'s parse (so that verifying it again takes
    /// the parse from there).
    func keepsParse(of token: String) -> Bool {
        guard let cache = snapshot().signatureCache, let parsed = parsedTokens else { return false }
        let digest = Array(token.utf8).withUnsafeBufferPointer { cache.digest(of: $0) }
        return parsed.lookup(digest) != nil
    }
}

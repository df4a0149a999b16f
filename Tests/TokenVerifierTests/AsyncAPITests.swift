import TestSupport
import Testing

@testable import TokenVerifier

/// The async API runs on the verifier's own Dispatch queues: same verdicts as the blocking API,
/// the caller's executor stays free while it works, and a cancelled task gets CancellationError.
@Suite struct AsyncAPITests {
    let fixtures = Fixtures()

    func requests(_ count: Int) -> [VerificationRequest] {
        let tokens = [
            Fixtures.token(fixtures.ed), Fixtures.token(fixtures.es),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1"])),
        ]
        return (0..<count).map {
            VerificationRequest(token: tokens[$0 % tokens.count], command: $0 % 5 == 0 ? "horn" : "unlock")
        }
    }

    /// The blocking batch call (from async code, overload resolution picks the async one).
    static func blocking(_ verifier: Verifier, _ requests: [VerificationRequest]) -> [VerificationResult] {
        verifier.verify(requests, threads: 2, chunkSize: 7)
    }

    @Test func asyncVerdictsAreTheBlockingOnes() async throws {
        let verifier = fixtures.verifier(options: VerificationOptions(checkTime: Fixtures.now, signatureCacheSlots: 0))
        let requests = requests(300)
        let blocking = Self.blocking(verifier, requests)
        let batch = try await verifier.verify(requests, threads: 2, chunkSize: 7)
        #expect(batch.map(\.reason) == blocking.map(\.reason))
        #expect(Set(batch.map(\.reason)) == [nil, .commandNotPermitted, .expired])
        for (index, request) in requests.prefix(20).enumerated() {
            let single = try await verifier.verify(request)
            #expect(single.reason == blocking[index].reason)
        }
        #expect(try await verifier.verify([]).isEmpty)
    }

    /// An actor awaiting a batch can serve other calls meanwhile: the batch does not block its executor.
    actor Desk {
        var events: [String] = []
        func note(_ event: String) { events.append(event) }
        func verify(_ verifier: Verifier, _ requests: [VerificationRequest]) async throws -> Int {
            let results = try await verifier.verify(requests)
            events.append("batch done")
            return results.count
        }
    }

    @Test func aBatchDoesNotBlockTheCallersExecutor() async throws {
        let verifier = fixtures.verifier(options: VerificationOptions(checkTime: Fixtures.now, signatureCacheSlots: 0))
        let desk = Desk()
        let requests = requests(6_000)
        async let count = desk.verify(verifier, requests)
        // Served by the same actor while the batch is in flight.
        while await desk.events.isEmpty {
            await desk.note("served")
        }
        #expect(try await count == requests.count)
        let events = await desk.events
        #expect(events.first == "served" && events.last == "batch done", "\(events.suffix(3))")
    }

    @Test func aCancelledTaskGetsCancellationError() async {
        let verifier = fixtures.verifier()
        let requests = requests(50_000)
        let batch = Task { () async throws(CancellationError) -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await verifier.verify(requests, chunkSize: 16).count
        }
        let single = Task { () async throws(CancellationError) -> Bool in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await verifier.verify(requests[0]).isValid
        }
        switch await batch.result {
        case .success: Issue.record("a cancelled batch returned results")
        case .failure: break
        }
        switch await single.result {
        case .success: Issue.record("a cancelled request returned a result")
        case .failure: break
        }
    }
}

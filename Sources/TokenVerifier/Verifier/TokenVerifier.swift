import Atomics
import Dispatch
import Synchronization

/// Verifies access tokens against a key set and a revocation snapshot (SPEC §2–§5).
///
/// The key set and the revocation snapshot are read through atomics: ``replaceRevocations(_:)``
/// and ``replaceKeys(_:)`` may run at any time, even during a batch, and each request is checked
/// against one snapshot or the other, never a mixture. Workers (``makeWorker()``, and those of the
/// batch API) take no lock per request; the single-request ``verify(_:)`` borrows a pooled worker
/// under a short lock.
///
/// ```swift
/// let (keys, _) = try KeySet.load(files: ["keys.jwks"])
/// let verifier = TokenVerifier(keys: keys, revocations: try RevocationList.load(files: ["revoked.jsonl"]))
/// let result = verifier.verify(VerificationRequest(token: token, command: "unlock"))
/// ```
public final class TokenVerifier: Sendable {
    let core: VerifierCore
    /// Workers waiting to be borrowed by single-request calls and batches (never used by two threads at once).
    private let idleWorkers = Mutex<[UncheckedSendable<VerificationWorker>]>([])

    public init(keys: KeySet, revocations: RevocationList = .empty, options: VerificationOptions = VerificationOptions()) {
        core = VerifierCore(keys: keys, revocations: revocations, options: options)
    }

    /// How tokens are checked.
    public var options: VerificationOptions { core.options }

    /// The key set in force.
    public var keys: KeySet { currentState.keys }

    /// The revocation snapshot in force.
    public var revocationList: RevocationList { currentRevocations }

    var currentState: VerifierState { core.currentState }
    var currentRevocations: RevocationList { core.currentRevocations }

    /// Puts a new revocation snapshot in force, atomically.
    public func replaceRevocations(_ list: RevocationList) {
        core.replaceRevocations(list)
    }

    /// Puts a new key set in force, atomically, with a new (empty) signature cache.
    public func replaceKeys(_ keys: KeySet) {
        core.replaceKeys(keys)
    }

    /// A worker for one thread: verify many tokens with it without sharing it between threads.
    public func makeWorker() -> VerificationWorker {
        VerificationWorker(core: core)
    }

    /// Verifies one request (thread-safe; borrows a worker from a small pool).
    public func verify(_ request: VerificationRequest) -> VerificationResult {
        let worker = borrowWorker()
        defer { returnWorker(worker) }
        return worker.verify(request)
    }

    /// Verifies `requests` on `threads` Dispatch workers (default: one per core) and returns the
    /// results in the same order. Workers take chunks of requests from a shared atomic counter and
    /// write each result into its own slot; no lock is taken per request.
    public func verify(_ requests: [VerificationRequest], threads: Int? = nil, chunkSize: Int = 256) -> [VerificationResult] {
        let count = requests.count
        guard count > 0 else { return [] }
        let threadCount = max(1, min(threads ?? activeProcessorCount(), (count + chunkSize - 1) / chunkSize))
        return [VerificationResult](unsafeUninitializedCapacity: count) { buffer, initialized in
            let slots = UncheckedSendable(buffer)
            let next = ManagedAtomic<Int>(0)
            requests.withUnsafeBufferPointer { requestBuffer in
                let input = UncheckedSendable(requestBuffer)
                DispatchQueue.concurrentPerform(iterations: threadCount) { _ in
                    let worker = self.borrowWorker()
                    while true {
                        let start = next.loadThenWrappingIncrement(by: chunkSize, ordering: .relaxed)
                        if start >= count { break }
                        for index in start..<min(start + chunkSize, count) {
                            (slots.value.baseAddress! + index).initialize(to: worker.verify(input.value[index]))
                        }
                    }
                    self.returnWorker(worker)
                }
            }
            initialized = count
        }
    }

    func borrowWorker() -> VerificationWorker {
        idleWorkers.withLock { $0.popLast() }?.value ?? VerificationWorker(core: core)
    }

    func returnWorker(_ worker: VerificationWorker) {
        let returned = UncheckedSendable(worker)
        idleWorkers.withLock { workers in
            if workers.count < 64 { workers.append(returned) }
        }
    }
}

/// Wraps a value that is handed to other threads under a discipline the compiler cannot see
/// (disjoint slots of one buffer, or read-only input).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The number of processors this process may run on.
public func activeProcessorCount() -> Int {
    max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}

import Dispatch

/// Verifies access tokens against the live state: a key set, a revocation list and the security
/// steps (spec §2–§5).
///
/// The live state is one snapshot read through an atomic: ``replaceKeys(_:)`` and
/// ``replaceRevocations(_:)`` may run at any time, even during a batch, and each request is
/// checked against one snapshot or the next, never a mixture. The library's own work runs on a
/// few serial Dispatch queues (one per core), each with its own worker; ``makeWorker()`` gives a
/// worker for a thread of the caller's.
///
/// ```swift
/// let (keys, _) = try KeySet.load(files: ["keys.jwks"])
/// let verifier = TokenVerifier(keys: keys, revocations: try RevocationList.load(files: ["revoked.jsonl"]))
/// let result = verifier.verify(VerificationRequest(token: token, command: "unlock"))
/// let later = try await verifier.verify(VerificationRequest(token: token))   // from async code
/// ```
public final class Verifier: Sendable {
    let core: VerifierCore
    let lanes: VerificationLanes

    /// A verifier with a key set, a revocation list, the security steps (spec §4b: a step
    /// policy and what devices have done; ``SecuritySteps/none`` checks no steps) and the status
    /// lists (spec §4c; nil: none configured, so a token that names a list is
    /// `status_unavailable` unless ``VerificationOptions/skipStatusLists``), above the
    /// `statusListFloors` `fetch` recorded (spec §4c "No step back").
    public init(
        keys: KeySet, revocations: RevocationList = .empty, steps: SecuritySteps = .none,
        statusLists: StatusListSet? = nil, trustAnchors: TrustAnchors? = nil,
        statusListFloors: StatusListFloors = .none, options: VerificationOptions = VerificationOptions()
    ) {
        core = VerifierCore(
            keys: keys, revocations: revocations, steps: steps, statusLists: statusLists,
            trustAnchors: trustAnchors, statusFloors: statusListFloors, options: options)
        lanes = VerificationLanes(count: activeProcessorCount(), core: core)
    }

    /// How tokens are checked.
    public var options: VerificationOptions { core.options }

    /// The snapshot of the live state in force (one atomic load), for a batch of lines to be
    /// checked against with ``VerificationWorker/verify(batch:against:_:)``: a caller that takes
    /// snapshots in line order answers its lines in line order (spec §4).
    package var snapshot: VerifierSnapshot { core.snapshot }

    /// The key set in force.
    public var keys: KeySet { core.snapshot.keys }

    /// The revocation list in force.
    public var revocationList: RevocationList { core.snapshot.revocations }

    /// Puts every part `update` names in force together, in one atomic swap: no line sees some
    /// of them and not the others.
    public func apply(_ update: LiveStateUpdate) {
        core.replace { $0.applying(update, options: core.options) }
    }

    /// The security steps in force.
    public var securitySteps: SecuritySteps { core.snapshot.steps }

    /// The trust anchors in force (nil when none are configured, spec §3b).
    public var trustAnchors: TrustAnchors? { core.snapshot.chains?.anchors }

    /// The status lists loaded (nil when none are configured).
    public var statusLists: StatusListSet? { core.snapshot.statusLists }

    /// What stderr should say of the status lists in force (spec §4c, "Status fails closed"): each
    /// generation that the key set in force leaves out of force (its key left the set or no
    /// longer verifies it), with the older generations it shadows, and each pair of generations
    /// with one `iat` and different entries, naming the files. One line each.
    public var statusListNotices: [String] { core.snapshot.statusIndex.notices }

    /// Puts a new revocation list in force, atomically.
    public func replaceRevocations(_ list: RevocationList) {
        apply(LiveStateUpdate(revocations: list))
    }

    /// Puts a new key set in force, atomically. Signature cache entries stay warm for keys whose
    /// material is unchanged; a token of a key that left the set is `unknown_key` from now on, and
    /// one whose key material changed is verified again with the new key.
    public func replaceKeys(_ keys: KeySet) {
        apply(LiveStateUpdate(keys: keys))
    }

    /// A worker for one thread: verify many tokens with it without sharing it between threads.
    public func makeWorker() -> VerificationWorker {
        VerificationWorker(core: core)
    }

    /// Verifies one request on the calling thread's behalf (thread-safe; runs on one of the
    /// verifier's queues and waits for it). From async code, prefer `try await verify(_:)`.
    public func verify(_ request: VerificationRequest) -> VerificationResult {
        let lane = lanes.next()
        return lane.queue.sync { lane.worker.verify(request) }
    }

    /// Verifies `requests` on up to `threads` of the verifier's queues (default: all) and returns
    /// the results in the same order, blocking the calling thread until they are done. Queues take
    /// chunks of `chunkSize` requests from a shared atomic counter; no lock is taken per request.
    /// From async code, use `await verify(_:)`, which does not block.
    public func verify(
        _ requests: [VerificationRequest], threads: Int? = nil, chunkSize: Int = 256
    ) -> [VerificationResult] {
        guard !requests.isEmpty else { return [] }
        let batch = VerificationBatch(requests)
        let finished = DispatchSemaphore(value: 0)
        lanes.run(batch, threads: threads ?? lanes.lanes.count, chunkSize: chunkSize, isCancelled: { false }) {
            finished.signal()
        }
        finished.wait()
        return batch.resultArray
    }
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

/// The earlier name of ``Verifier`` (the module has the same name, which made `TokenVerifier.X`
/// ambiguous); kept for one release.
@available(*, deprecated, renamed: "Verifier")
public typealias TokenVerifier = Verifier

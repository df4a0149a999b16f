import Atomics
import TokenVerifier

/// What `verify`'s stream counts for its metrics (spec §6b): lines read, answers by reason,
/// signature-cache hits and misses, and the time from reading a line to writing its answer.
///
/// The pipeline adds to it once per chunk of lines (a few relaxed atomic additions, whichever
/// thread writes the chunk), never once per line and never under a lock; a reader
/// (``reading()``, the metrics file's writer) takes the totals at any time.
public final class StreamCounters: Sendable {
    /// The upper bounds of the latency histogram's buckets, in seconds (`+Inf` follows).
    public static let latencyBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    private static let boundNanoseconds = latencyBounds.map { UInt64($0 * 1e9) }
    private static let reasonIndex = Dictionary(
        uniqueKeysWithValues: Reason.allCases.enumerated().map { ($0.element, $0.offset) })

    private let linesRead = ManagedAtomic<Int>(0)
    private let valid = ManagedAtomic<Int>(0)
    private let byReason = Reason.allCases.map { _ in ManagedAtomic<Int>(0) }
    private let cacheHits = ManagedAtomic<Int>(0)
    private let cacheMisses = ManagedAtomic<Int>(0)
    /// Lines per bucket, not cumulative; the last one is `+Inf`.
    private let latencyLines = (0...latencyBounds.count).map { _ in ManagedAtomic<Int>(0) }
    private let latencyNanoseconds = ManagedAtomic<UInt64>(0)

    public init() {}

    /// The totals at one moment.
    public struct Reading: Sendable, Equatable {
        public var linesRead = 0
        public var valid = 0
        /// Every reason, those not seen with 0.
        public var byReason: [Reason: Int] = [:]
        public var signatureCacheHits = 0
        public var signatureCacheMisses = 0
        /// Lines answered within each of ``StreamCounters/latencyBounds`` (cumulative), then all.
        public var latencyCumulative: [Int] = []
        public var latencySeconds = 0.0

        /// Answers written: the valid ones and those with a reason.
        public var answered: Int { valid + byReason.values.reduce(0, +) }
    }

    public func reading() -> Reading {
        var reading = Reading()
        reading.linesRead = linesRead.load(ordering: .relaxed)
        reading.valid = valid.load(ordering: .relaxed)
        for (reason, index) in Self.reasonIndex { reading.byReason[reason] = byReason[index].load(ordering: .relaxed) }
        reading.signatureCacheHits = cacheHits.load(ordering: .relaxed)
        reading.signatureCacheMisses = cacheMisses.load(ordering: .relaxed)
        var running = 0
        for bucket in latencyLines {
            running += bucket.load(ordering: .relaxed)
            reading.latencyCumulative.append(running)
        }
        reading.latencySeconds = Double(latencyNanoseconds.load(ordering: .relaxed)) / 1e9
        return reading
    }

    /// `count` non-blank lines cut from input (once per read).
    func addLinesRead(_ count: Int) {
        linesRead.wrappingIncrement(by: count, ordering: .relaxed)
    }

    /// The answers of one chunk, written `nanoseconds` after its lines were read.
    func addWritten(_ summary: RunSummary, nanoseconds: UInt64) {
        valid.wrappingIncrement(by: summary.valid, ordering: .relaxed)
        for (reason, count) in summary.byReason {
            byReason[Self.reasonIndex[reason]!].wrappingIncrement(by: count, ordering: .relaxed)
        }
        if summary.signatureCacheHits > 0 {
            cacheHits.wrappingIncrement(by: summary.signatureCacheHits, ordering: .relaxed)
        }
        if summary.signatureCacheMisses > 0 {
            cacheMisses.wrappingIncrement(by: summary.signatureCacheMisses, ordering: .relaxed)
        }
        let lines = summary.answered
        guard lines > 0 else { return }
        let bucket = Self.boundNanoseconds.firstIndex { nanoseconds <= $0 } ?? Self.boundNanoseconds.count
        latencyLines[bucket].wrappingIncrement(by: lines, ordering: .relaxed)
        latencyNanoseconds.wrappingIncrement(by: nanoseconds &* UInt64(lines), ordering: .relaxed)
    }
}

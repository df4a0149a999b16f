import Foundation
import TokenVerifier
import TokenTools

/// Makes the chunks of a set on several threads and hands them over in order, with at most
/// `window` chunks made but not yet handed over: memory stays flat whatever the set's size.
final class OrderedChunks: @unchecked Sendable {
    private let condition = NSCondition()
    private let spec: TokenSetSpec
    private let keys: (ed25519: SigningKey, es256: SigningKey)
    private let chunkCount: Int
    private let window: Int
    private var nextToClaim = 0
    private var handedOver = 0
    private var ready: [Int: TokenChunk] = [:]
    private var stopped = false
    private var runningWorkers = 0

    private init(spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey), threads: Int) {
        self.spec = spec
        self.keys = keys
        chunkCount = spec.chunkCount
        window = max(2, threads * 2)
    }

    /// Generates the chunks of `spec` on `threads` workers and calls `consume` with each, in
    /// order, on the calling thread. `consume` returns false to stop early (then no more chunks
    /// are made); an error it throws stops the run and is rethrown. Returns whether every chunk
    /// was consumed.
    static func run<Failure: Error>(_ spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey), threads: Int,
                                    consume: (TokenChunk) throws(Failure) -> Bool) throws(Failure) -> Bool {
        let producer = OrderedChunks(spec: spec, keys: keys, threads: threads)
        let workers = max(1, min(threads, producer.chunkCount))
        producer.runningWorkers = workers
        for _ in 0..<workers {
            let thread = Thread { producer.work() }
            thread.stackSize = 1 << 20
            thread.start()
        }
        defer { producer.stopAndJoin() }
        for index in 0..<producer.chunkCount {
            let chunk = producer.take(index)
            if try !consume(chunk) { return false }
        }
        return true
    }

    private func work() {
        let worker = ChunkWorker(spec: spec, keys: keys)
        while let index = claim() {
            let chunk = worker.makeChunk(index)
            condition.lock()
            ready[index] = chunk
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        runningWorkers -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped && nextToClaim < chunkCount && nextToClaim >= handedOver + window { condition.wait() }
        guard !stopped, nextToClaim < chunkCount else { return nil }
        nextToClaim += 1
        return nextToClaim - 1
    }

    private func take(_ index: Int) -> TokenChunk {
        condition.lock()
        defer { condition.unlock() }
        while ready[index] == nil { condition.wait() }
        handedOver = index + 1
        condition.broadcast()
        return ready.removeValue(forKey: index)!
    }

    private func stopAndJoin() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while runningWorkers > 0 { condition.wait() }
        ready.removeAll()
        condition.unlock()
    }
}

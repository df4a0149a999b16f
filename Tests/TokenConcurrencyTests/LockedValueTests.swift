import Dispatch
import Testing
import TokenConcurrency

@Suite struct LockedValueTests {
    /// Four threads add to one count and append to one array: nothing is lost or torn.
    @Test func concurrentChangesAreNeverLost() {
        let shared = LockedValue((count: 0, seen: [Int]()))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for step in 0..<10_000 {
                shared.withLock {
                    $0.count += 1
                    $0.seen.append(thread * 10_000 + step)
                }
            }
        }
        let (count, seen) = shared.withLock { ($0.count, $0.seen) }
        #expect(count == 40_000)
        #expect(Set(seen) == Set(0..<40_000))
    }

    @Test func aThrownErrorLeavesTheLockFree() {
        struct Stop: Error {}
        let shared = LockedValue(1)
        #expect(throws: Stop.self) { try shared.withLock { _ in throw Stop() } }
        #expect(shared.withLock { $0 } == 1, "taken again after the error")
    }
}

@Suite struct LockTests {
    /// Two threads add to one count under the lock: nothing is lost.
    @Test func theLockExcludes() {
        let lock = Lock()
        nonisolated(unsafe) var count = 0
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<50_000 { lock.withLock { count += 1 } }
        }
        #expect(lock.withLock { count } == 100_000)
    }
}

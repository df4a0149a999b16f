import Atomics
import TestSupport
import Testing
import TokenConcurrency

#if canImport(Glibc)
import Glibc
#endif

/// Ordered production: every element once and in order whatever the threads' timing, the window
/// respected, early stops and errors ending every worker.
@Suite struct OrderedProductionTests {
    /// Elements finish in a shuffled order (random amounts of work) and still come out in order, each
    /// made once, each producer made once per thread.
    @Test(arguments: [1, 2, 5])
    func elementsComeOutInOrder(threads: Int) {
        let made = ManagedAtomic<Int>(0)
        let producers = ManagedAtomic<Int>(0)
        var seen: [Int] = []
        let finished = OrderedProduction.run(
            count: 300, threads: threads, window: 4,
            makeProducer: {
                producers.wrappingIncrement(ordering: .relaxed)
                return { index in
                    if index % 3 == 0 { simulatedWork(units: Int.random(in: 0...30_000)) }
                    made.wrappingIncrement(ordering: .relaxed)
                    return index * 10
                }
            }
        ) { (element: Int) -> Bool in
            seen.append(element)
            return true
        }
        #expect(finished)
        #expect(seen == (0..<300).map { $0 * 10 })
        #expect(made.load(ordering: .relaxed) == 300)
        #expect(producers.load(ordering: .relaxed) == threads)
    }

    /// No element is made more than `window` ahead of the last one handed over (the consumer
    /// records the next index it expects once it is done with an element).
    @Test func theWindowBoundsWhatIsMadeAhead() {
        let window = 3
        let claimed = ManagedAtomic<Int>(0)
        let consumed = ManagedAtomic<Int>(0)
        let worstLead = ManagedAtomic<Int>(0)
        _ = OrderedProduction.run(
            count: 200, threads: 4, window: window,
            makeProducer: {
                { index in
                    claimed.wrappingIncrement(ordering: .relaxed)
                    let lead = index - consumed.load(ordering: .acquiring)
                    var worst = worstLead.load(ordering: .relaxed)
                    while lead > worst {
                        let (exchanged, found) = worstLead.compareExchange(
                            expected: worst, desired: lead, ordering: .relaxed)
                        if exchanged { break }
                        worst = found
                    }
                    return index
                }
            }
        ) { (element: Int) -> Bool in
            simulatedWork(units: 5_000)  // a consumer slower than its producers
            consumed.store(element + 1, ordering: .releasing)
            return true
        }
        #expect(claimed.load(ordering: .relaxed) == 200)
        #expect(worstLead.load(ordering: .relaxed) <= window, "an element was made more than the window ahead")
        #expect(worstLead.load(ordering: .relaxed) > 0, "the workers never ran ahead: the test shows nothing")
    }

    /// A consumer that says stop gets nothing more, and the workers end (the call returns).
    @Test func stoppingEarlyEndsTheWorkers() {
        let made = ManagedAtomic<Int>(0)
        var seen = 0
        let finished = OrderedProduction.run(
            count: 10_000, threads: 3, window: 4,
            makeProducer: {
                { index in
                    made.wrappingIncrement(ordering: .relaxed)
                    return index
                }
            }
        ) { (_: Int) -> Bool in
            seen += 1
            return seen < 5
        }
        #expect(!finished)
        #expect(seen == 5)
        #expect(
            made.load(ordering: .relaxed) < 5 + 4 + 3, "no more than the window (and one per worker) made past the stop"
        )
    }

    struct Interrupted: Error, Equatable {}

    @Test func aConsumerErrorIsRethrown() {
        var seen = 0
        #expect(throws: Interrupted()) {
            _ = try OrderedProduction.run(count: 50, threads: 2, window: 2, makeProducer: { { $0 } }) {
                (_: Int) throws(Interrupted) -> Bool in
                seen += 1
                throw Interrupted()
            }
        }
        #expect(seen == 1)
    }

    @Test func nothingToMake() {
        var seen = 0
        #expect(
            OrderedProduction.run(count: 0, threads: 2, window: 2, makeProducer: { { $0 } }) { (_: Int) -> Bool in
                seen += 1
                return true
            })
        #expect(seen == 0)
    }
}

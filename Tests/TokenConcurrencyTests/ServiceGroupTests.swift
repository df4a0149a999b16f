import Foundation
import Testing
import TokenConcurrency

/// One service shape: a ``ServiceGroup`` starts each background service on its own thread, runs
/// the foreground, then stops the services in reverse order, each finishing its work.
@Suite struct ServiceGroupTests {
    /// Records what it did: started, each tick, and its last work after the stop.
    final class Recorder: Service, Sendable {
        let name: String
        let log: LockedValue<[String]>
        init(_ name: String, _ log: LockedValue<[String]>) {
            self.name = name
            self.log = log
        }
        func run(until stop: StopSignal) {
            log.withLock { $0.append("\(name) started") }
            while !stop.wait(seconds: 0.01) { log.withLock { $0.append("\(name) tick") } }
            log.withLock { $0.append("\(name) finished") }
        }
    }

    @Test func servicesRunDuringTheForegroundAndStopInReverseOrder() {
        let log = LockedValue<[String]>([])
        let group = ServiceGroup([Recorder("metrics", log), Recorder("watcher", log)])
        let answer = group.run { _ in
            // The foreground waits for an event of each service (a tick), not for a time.
            while log.withLock({ !($0.contains("metrics tick") && $0.contains("watcher tick")) }) { sched_yield() }
            return 42
        }
        #expect(answer == 42)
        let finished = log.withLock { $0.filter { $0.hasSuffix("finished") } }
        #expect(finished == ["watcher finished", "metrics finished"])
        #expect(log.withLock { $0.last } == "metrics finished", "nothing runs after the group returns")
    }

    @Test func aStopEndsAWaitAtOnceAndStays() {
        let stop = StopSignal()
        #expect(!stop.isTriggered)
        let waiter = BackgroundThread { _ = stop.wait(seconds: 3600) }
        stop.trigger()
        waiter.join()  // returns only because the trigger ended the hour-long wait
        #expect(stop.isTriggered)
        #expect(stop.wait(seconds: 3600))
    }
}

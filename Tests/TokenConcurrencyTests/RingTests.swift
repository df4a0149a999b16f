import Atomics
import Dispatch
import TestSupport
import Testing
import TokenConcurrency

#if canImport(Glibc)
import Glibc
#endif

/// The lock-free hand-offs on their own: the work ring, the work queue and the reorder ring.
@Suite struct RingTests {
    @Test func theRingIsFIFOAndBounded() {
        let ring = WorkRing<Int>(capacity: 5)
        #expect(ring.capacity == 8)
        for value in 0..<8 { #expect(ring.tryPush(value)) }
        #expect(!ring.tryPush(8), "full")
        #expect(ring.tryPop() == 0)
        #expect(ring.tryPush(8))
        var popped: [Int] = []
        while let value = ring.tryPop() { popped.append(value) }
        #expect(popped == Array(1...8))
        #expect(ring.tryPop() == nil, "empty")
    }

    @Test func manyConsumersTakeEveryItemExactlyOnce() {
        // One producer (the reader) and four sleeping consumers; every item reaches exactly one.
        // Consumers return room out of order (like unordered output), so a consumer preempted
        // while it holds a slot makes the producer wait for it (this once crashed the queue).
        let consumers = 4
        let count = 100_000
        let queue = WorkQueue<Int>(capacity: 64, consumers: consumers)
        let room = DispatchSemaphore(value: 64)
        let seen = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
        seen.initialize(repeating: 0)
        defer { seen.deallocate() }
        let slots = UncheckedBuffer(seen)
        let group = DispatchGroup()
        for index in 0..<consumers {
            DispatchQueue(label: "consumer.\(index)").async(group: group) {
                while let item = queue.pop() {
                    slots.buffer[item] &+= 1
                    room.signal()
                }
            }
        }
        for item in 0..<count {
            room.wait()
            queue.push(item)
        }
        queue.close()
        group.wait()
        #expect(seen.allSatisfy { $0 == 1 })
    }

    @Test func closingWakesIdleConsumers() {
        let queue = WorkQueue<Int>(capacity: 4, consumers: 3)
        let finished = ManagedAtomic<Int>(0)
        let consumers = LockedValue<[pid_t]>([])
        let group = DispatchGroup()
        for index in 0..<3 {
            DispatchQueue(label: "idle.\(index)").async(group: group) {
                let id = Self.currentThreadID()
                consumers.withLock { $0.append(id) }
                #expect(queue.pop() == nil)
                finished.wrappingIncrement(ordering: .relaxed)
            }
        }
        #expect(Self.waitUntilAsleep(consumers, count: 3), "each consumer goes to sleep in pop")
        #expect(finished.load(ordering: .relaxed) == 0, "they sleep while there is nothing to do")
        queue.close()
        #expect(group.wait(timeout: .now() + 5) == .success)
        #expect(finished.load(ordering: .relaxed) == 3)
    }

    /// Waits until `count` threads have put their ids in `threads` and each is asleep in the kernel
    /// (state S in /proc/self/task/TID/stat); false after 10 seconds.
    static func waitUntilAsleep(_ threads: LockedValue<[pid_t]>, count: Int) -> Bool {
        eventually {
            let ids = threads.withLock { $0 }
            return ids.count == count && ids.allSatisfy { threadState($0) == "S" }
        }
    }

    /// The kernel's id of the calling thread, from the link /proc/thread-self ("PID/task/TID").
    static func currentThreadID() -> pid_t {
        var target = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &target, target.count - 1)
        guard length > 0 else { return -1 }
        let text = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "/").last.flatMap { pid_t($0) } ?? -1
    }

    /// The state letter of this process's thread `id`: the field after the parenthesised name.
    static func threadState(_ id: pid_t) -> Character? {
        guard let file = fopen("/proc/self/task/\(id)/stat", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].first { $0 != " " }
    }

    @Test func theReorderRingHandsBackBySequence() {
        let ring = ReorderRing<Item>(capacity: 4)
        let later = Item(5)
        ring.store(later, at: 5)
        #expect(!ring.isReady(4) && ring.isReady(5))
        #expect(ring.take(4) == nil)
        #expect(ring.take(5) === later)
        #expect(ring.take(5) == nil, "taken once")
    }
}

/// An element of a reorder ring.
final class Item: AtomicReference, Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
}

/// A buffer written by several threads at disjoint (or atomic-enough for the test) places.
struct UncheckedBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }
}

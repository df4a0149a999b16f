import Foundation
import Testing
import TokenGen

@testable import TokenVerifier

/// The 10 M-entry measurement of spec §4b (not a unit test: off unless asked for).
/// Build in release for meaningful figures:
///
///     swift build -c release --build-tests -Xswiftc -enable-testing
///     TOKENVERIFY_STEPS_10M=/tmp/steps-10m.jsonl /usr/bin/time -f "%e s %M KB" \
///         swift test -c release --skip-build --filter tenMillionDeviceStepEntries
///
/// The first run writes the file (when absent) and loads it; a second run only loads it, so
/// that its peak RSS is the snapshot's (with `TOKENVERIFY_STEPS_QUERIES=0`, no query set either).
/// `TOKENVERIFY_STEPS_COUNT` changes the entry count (a multiple of 5).
extension SecurityStepsTests {
    static let scaleFile = ProcessInfo.processInfo.environment["TOKENVERIFY_STEPS_10M"]
    static let scaleCount = Int(ProcessInfo.processInfo.environment["TOKENVERIFY_STEPS_COUNT"] ?? "") ?? 10_000_000
    static let scaleQueries = Int(ProcessInfo.processInfo.environment["TOKENVERIFY_STEPS_QUERIES"] ?? "") ?? 1_000_000

    /// Line `index`: every fifth an `aud`-less entry for a new device, the next four that
    /// device's entries for four cars (so nearly every line is a distinct key: the worst case).
    static func scaleEntry(_ index: Int) -> (sub: String, aud: String?) {
        let device = "phone-\(String(index / 5 * 5 + 10_000_000_000))"
        return index % 5 == 0 ? (device, nil) : (device, "car-\(String(index % 1_000_003 + 10_000_000))")
    }

    /// CPU seconds this thread has used (the wall clock on a shared VM also counts other jobs).
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    static func writeScaleFile(_ path: String, count: Int) throws {
        guard let file = fopen(path, "w") else {
            throw SecurityStepsError(file: path, line: nil, message: "cannot create")
        }
        defer { fclose(file) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        for index in 0..<count {
            let (sub, aud) = scaleEntry(index)
            let line =
                aud.map { #"{"sub":"\#(sub)","aud":"\#($0)","done":["trustedPhone","deviceActivation"]}"# }
                ?? #"{"sub":"\#(sub)","done":["trustedPhone"]}"#
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            if buffer.count > (1 << 20) - 200 {
                _ = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        _ = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    }

    @Test(
        .enabled(
            if: scaleFile != nil, "set TOKENVERIFY_STEPS_10M=/tmp/steps-10m.jsonl to measure 10 M device-step entries"))
    func tenMillionDeviceStepEntries() throws {
        let path = try #require(Self.scaleFile)
        let count = Self.scaleCount
        if !FileManager.default.fileExists(atPath: path) {
            let started = ContinuousClock.now
            try Self.writeScaleFile(path, count: count)
            print("steps-10m: wrote \(count) entries to \(path) in \(ContinuousClock.now - started)")
        }
        let loadStarted = ContinuousClock.now
        let loadCPU = Self.threadCPUSeconds()
        let done = try DeviceSteps.load(files: [path])
        let loadTime = ContinuousClock.now - loadStarted
        let bytesPerEntry = Double(done.storageBytes) / Double(done.count)
        print(
            "steps-10m: loaded \(done.count) entries (\(done.keyCount) keys) in \(loadTime) (\(Self.threadCPUSeconds() - loadCPU) s CPU), storageBytes \(done.storageBytes) = \(bytesPerEntry) bytes per entry"
        )
        #expect(done.count == count)
        #expect(done.storageBytes <= 64 * count)
        #expect(loadTime <= .seconds(10))

        // Queries: by default 1 M lines of (device, car) of the file (every third a car the device lacks,
        // every seventh a stranger), through the staged hot-path API check 11b will use.
        let checker = SecuritySteps(policy: try StepPolicy.parse(Array(SecurityStepsTests.specPolicy.utf8)), done: done)
        var random = SplitMix64(7)
        var text: [UInt8] = []
        var ranges: [(device: Range<Int>, object: Range<Int>)] = []
        let queries = Self.scaleQueries
        guard queries > 0 else { return }
        for query in 0..<queries {
            var (sub, aud) = Self.scaleEntry(Int.random(in: 0..<count, using: &random) / 5 * 5 + 1)
            if query % 3 == 0 { aud = "car-none" }
            if query % 7 == 0 { sub = "stranger-\(query)" }
            let deviceStart = text.count
            text.append(contentsOf: sub.utf8)
            let objectStart = text.count
            text.append(contentsOf: aud!.utf8)
            ranges.append((deviceStart..<objectStart, objectStart..<text.count))
        }
        var satisfied = 0
        let command = Array("unlock".utf8)
        let lookupStarted = ContinuousClock.now
        let lookupCPU = Self.threadCPUSeconds()
        text.withUnsafeBufferPointer { text in
            command.withUnsafeBufferPointer { command in
                for range in ranges {
                    let device = UnsafeBufferPointer(rebasing: text[range.device])
                    guard let requirement = checker.requirement(command: command) else { continue }
                    let progress = checker.progress(requirement, device: device)
                    if checker.missingStep(
                        requirement, progress, device: device, object: UnsafeBufferPointer(rebasing: text[range.object])
                    ) == nil {
                        satisfied += 1
                    }
                }
            }
        }
        let lookupTime = ContinuousClock.now - lookupStarted
        let lookupCPUTime = Self.threadCPUSeconds() - lookupCPU
        let seconds = Double(lookupTime.components.seconds) + Double(lookupTime.components.attoseconds) * 1e-18
        print(
            "steps-10m: \(queries) queries in \(lookupTime): \(Int(Double(queries) / seconds)) queries/s, \(seconds * 1e9 / Double(queries)) ns each (CPU: \(lookupCPUTime * 1e9 / Double(queries)) ns each), \(satisfied) satisfied"
        )
        // Queries 0, 3, 6, … lack the car and 0, 7, 14, … are strangers: the others pass
        // (571,428 of 1 M).
        #expect(satisfied == (0..<queries).count { $0 % 3 != 0 && $0 % 7 != 0 })
    }
}

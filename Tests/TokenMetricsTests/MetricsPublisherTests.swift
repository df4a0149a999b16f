import Foundation
import TestSupport
import Testing
import TokenConcurrency

@testable import TokenMetrics

/// ``MetricsPublisher``, a service of a ``ServiceGroup``: the file written at once, every
/// interval and once more when the group stops; a failing write said once, and its recovery once.
@Suite struct MetricsPublisherTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("publisher-\(UUID().uuidString)").path

    func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    @Test func theFileIsWrittenAtOnceThenEachIntervalThenAtTheEnd() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/m.prom"
        let renders = LockedBox(0)
        let logged = LockedBox<[String]>([])
        let publisher = MetricsPublisher(
            file: AtomicFile(path: path), interval: 0.05,
            render: {
                let count = renders.update { value -> Int in
                    value += 1
                    return value
                }
                return Array("renders \(count)\n".utf8)
            },
            log: { line in logged.update { $0.append(line) } })
        func rendersInFile() -> Int { Int((contents(path) ?? "").dropFirst(8).dropLast()) ?? 0 }
        ServiceGroup([publisher]).run { _ in
            let written = eventually(observe: { contents(path) }, until: { $0 != nil })
            #expect(written.last?.hasPrefix("renders ") == true)
            // Written again by the timer: a later render is in the file.
            let again = eventually(observe: rendersInFile, until: { $0 >= 3 })
            #expect(again.met, "the file holds render \(again.last)")
        }
        let final = renders.get()
        #expect(contents(path) == "renders \(final)\n", "the stop writes the last render")
        #expect(logged.get() == [])
    }

    @Test func aFailingWriteIsSaidOnceAndItsRecoveryOnce() throws {
        let path = folder + "/m.prom"  // the folder does not exist yet
        let logged = LockedBox<[String]>([])
        let publisher = MetricsPublisher(
            file: AtomicFile(path: path), interval: 0.02, render: { Array("x 1\n".utf8) },
            log: { line in logged.update { $0.append(line) } })
        try ServiceGroup([publisher]).run { _ in
            let failed = logged.wait { $0.count >= 1 }
            #expect(failed.last.first?.hasPrefix("tokenverify: metrics file not written (the run goes on") == true)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let recovered = logged.wait { $0.count >= 2 }
            #expect(recovered.last.count == 2, "\(recovered.last)")
            #expect(recovered.last.last == "tokenverify: metrics file \(path) written again")
        }
        #expect(logged.get().count == 2, "each failed write after the first is not said again: \(logged.get())")
        #expect(contents(path) == "x 1\n")
    }
}

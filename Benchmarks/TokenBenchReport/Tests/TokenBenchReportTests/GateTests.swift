import Foundation
import TokenBenchReport
import XCTest

final class GateTests: XCTestCase {
    let thresholds = Thresholds()

    private func status(
        _ current: Report, _ baseline: Report, _ thresholds: Thresholds? = nil
    ) -> (Gate.ExitStatus, [Comparison]) {
        let rows = Gate.compare(current, against: baseline, thresholds: thresholds ?? self.thresholds)
        return (Gate.status(rows, report: current, thresholds: thresholds ?? self.thresholds), rows)
    }

    func testTheSameFiguresPass() {
        let (result, rows) = status(Fixtures.report(), Fixtures.report())
        XCTAssertEqual(result, .pass)
        XCTAssertEqual(result.rawValue, 0)
        XCTAssertTrue(rows.contains { $0.figure == .instructions && $0.verdict == .pass })
        XCTAssertTrue(
            rows.contains { $0.figure == .efficiency && $0.scenario == "efficiency-ed25519" && $0.verdict == .pass })
    }

    func testThreePercentMoreInstructionsIsARegressionNamingScenarioFigureBaselineAndThreshold() throws {
        let (result, rows) = status(Fixtures.report(instructions: 29_870), Fixtures.report(instructions: 29_000))
        XCTAssertEqual(result, .regression)
        XCTAssertEqual(result.rawValue, 2)
        let regression = try XCTUnwrap(rows.first { $0.verdict == .regression })
        XCTAssertEqual(regression.scenario, "instructions-ed25519")
        XCTAssertTrue(regression.message.contains("instructions-ed25519"))
        XCTAssertTrue(regression.message.contains("instructions/token"))
        XCTAssertTrue(regression.message.contains("baseline of 29000"))
        XCTAssertTrue(regression.message.contains("threshold 1.5%"))
    }

    func testOnePercentMoreInstructionsPasses() {
        XCTAssertEqual(status(Fixtures.report(instructions: 29_290), Fixtures.report(instructions: 29_000)).0, .pass)
    }

    func testFewerInstructionsBeyondTheThresholdIsAnImprovement() {
        let (result, rows) = status(Fixtures.report(instructions: 27_000), Fixtures.report(instructions: 29_000))
        XCTAssertEqual(result, .improvement)
        XCTAssertEqual(result.rawValue, 4)
        XCTAssertTrue(rows.contains { $0.verdict == .improvement && $0.message.contains("--update-baseline") })
    }

    func testABaselineWithEfficiencyInflatedByFifteenPercentIsARegression() {
        let current = Fixtures.report()
        let inflated = Fixtures.report(efficiency: [0.95, 0.96, 0.97, 0.96, 0.95].map { $0 * 1.15 })
        let (result, rows) = status(current, inflated)
        XCTAssertEqual(result, .regression)
        XCTAssertEqual(rows.first { $0.verdict == .regression }?.figure, .efficiency)
    }

    func testAnEfficiencyFallWithinTheRunsOwnSpreadPasses() {
        // A 12% fall, but the median of repetitions that spread so much (interquartile 0.8 … 1.0)
        // is uncertain by more: twice its standard error, 2 × 1.2533 × (0.2 ÷ 0.845 ÷ 1.349) ÷ √5.
        let noisy = Fixtures.report(efficiency: [0.70, 0.80, 0.845, 1.0, 1.05])
        let (result, rows) = status(noisy, Fixtures.report(efficiency: [0.96, 0.96, 0.96, 0.96, 0.96]))
        XCTAssertEqual(result, .pass)
        let row = rows.first { $0.figure == .efficiency && $0.scenario == "efficiency-ed25519" }
        XCTAssertEqual(row?.tolerance ?? 0, 2 * 1.2533 * (0.2 / 0.845 / 1.349) / 5.0.squareRoot(), accuracy: 1e-9)
    }

    func testSingleShotEfficiencyAndP99AreShownButDoNotGateByDefault() {
        var current = Fixtures.report(p99: 90_000)
        current.scenarios[2].efficiency = 0.5
        let (result, rows) = status(current, Fixtures.report())
        XCTAssertEqual(result, .pass)
        XCTAssertEqual(rows.first { $0.scenario == "ed25519" && $0.figure == .efficiency }?.verdict, .notGated)
        XCTAssertEqual(rows.first { $0.scenario == "ed25519" && $0.figure == .p99 }?.verdict, .notGated)
    }

    func testP99GatesWithItsOwnThresholdWhenAskedFor() {
        var thresholds = Thresholds()
        thresholds.gated = [.p99]
        thresholds.p99 = 0.5
        XCTAssertEqual(status(Fixtures.report(p99: 17_000), Fixtures.report(p99: 12_000), thresholds).0, .pass)
        XCTAssertEqual(status(Fixtures.report(p99: 19_000), Fixtures.report(p99: 12_000), thresholds).0, .regression)
    }

    func testABaselineWithoutTheRunsGatedFiguresIsMissing() {
        let empty = Report(machine: .init(host: "h", cores: 2, date: "d"))
        XCTAssertEqual(status(Fixtures.report(), empty).0, .baselineMissing)
        XCTAssertEqual(Gate.ExitStatus.baselineMissing.rawValue, 3)
    }

    func testAMissingBaselineFileAndAnUnreadableOneThrow() throws {
        XCTAssertThrowsError(try Gate.loadBaseline("/nonexistent/baseline.json")) { error in
            guard case Gate.BaselineError.missing = error else { return XCTFail("\(error)") }
        }
        let path = NSTemporaryDirectory() + "tokenbench-unreadable-\(getpid()).json"
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try Gate.loadBaseline(path)) { error in
            guard case Gate.BaselineError.unreadable = error else { return XCTFail("\(error)") }
        }
    }

    func testUpdatingTheBaselineReplacesScenariosByNameAndKeepsTheOthers() throws {
        var baseline = Fixtures.report(instructions: 1)
        baseline.scenarios.append(Report.Scenario(name: "revocations-10m", tokens: 1, threads: 2, efficiency: 0.9))
        let merged = Fixtures.report(instructions: 29_000).merged(into: baseline)
        XCTAssertEqual(merged.scenarios.count, baseline.scenarios.count)
        XCTAssertEqual(merged.scenarios.first { $0.name == "instructions-ed25519" }?.instructions?.perToken, 29_000)
        XCTAssertNotNil(merged.scenarios.first { $0.name == "revocations-10m" })
        XCTAssertEqual(merged.scenarios.filter { $0.name == "scaling-es256" }.map(\.threads), [1, 2])
    }

    func testUpdatingTheBaselineWithoutInstructionsKeepsItsValgrindVersion() throws {
        let baseline = Fixtures.report(instructions: 1)
        var run = Report(machine: .init(host: "other-host", cores: 2, date: "2026-11-27T05:00:00Z"))
        run.scenarios.append(Report.Scenario(name: "efficiency-es256", tokens: 1, threads: 2, efficiency: 0.9))
        let merged = run.merged(into: baseline)
        XCTAssertEqual(merged.machine.valgrind, "valgrind-3.19.0")
        XCTAssertEqual(merged.machine.host, "other-host")
        var counted = run
        counted.machine.valgrind = "valgrind-3.22.0"
        XCTAssertEqual(counted.merged(into: baseline).machine.valgrind, "valgrind-3.22.0")
    }

    func testAnOldBaselineWithoutTheNewFieldsStillDecodes() throws {
        let old =
            #"{"machine":{"cores":2,"date":"d","host":"vm"},"scenarios":[{"name":"ed25519","tokens":10,"threads":2,"efficiency":0.97,"notes":{}}]}"#
        let report = try JSONDecoder().decode(Report.self, from: Data(old.utf8))
        XCTAssertEqual(report.scenarios.first?.efficiency, 0.97)
    }

    func testQuartiles() {
        XCTAssertEqual(Statistics.median([3, 1, 2]), 2)
        XCTAssertEqual(Statistics.median([4, 1, 2, 3]), 2.5)
        XCTAssertEqual(Statistics.quantile([1, 2, 3, 4, 5], 0.25), 2)
        XCTAssertEqual(Statistics.relativeSpread([1, 2, 3, 4, 5]) ?? 0, 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertNil(Statistics.median([]))
        XCTAssertEqual(
            Statistics.relativeStandardErrorOfMedian([1, 2, 3, 4, 5]) ?? 0,
            1.2533 * (2.0 / 3.0 / 1.349) / 5.0.squareRoot(), accuracy: 1e-12)
        XCTAssertNil(Statistics.relativeStandardErrorOfMedian([1]))
    }
}

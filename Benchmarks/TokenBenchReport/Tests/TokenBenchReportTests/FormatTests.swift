import Foundation
import TokenBenchReport
import XCTest

final class FormatTests: XCTestCase {
    /// Both github-action-benchmark files: arrays of {name, unit, value, range?, extra?}, with
    /// names unique, throughput and efficiency in the bigger file, latency and instructions in the smaller.
    func testGitHubBenchmarkFilesParseBackWithTheirFields() throws {
        let report = Fixtures.report()
        let bigger = try parse(GitHubBenchmarkFormat.encode(GitHubBenchmarkFormat.biggerIsBetter(report)))
        let smaller = try parse(GitHubBenchmarkFormat.encode(GitHubBenchmarkFormat.smallerIsBetter(report)))
        for entries in [bigger, smaller] {
            XCTAssertFalse(entries.isEmpty)
            for entry in entries {
                XCTAssertTrue(
                    Set(entry.keys).isSubset(of: ["name", "unit", "value", "range", "extra"]), "\(entry.keys)")
                XCTAssertNotNil(entry["name"] as? String)
                XCTAssertNotNil(entry["unit"] as? String)
                XCTAssertNotNil(entry["value"] as? NSNumber)
            }
            let names = entries.compactMap { $0["name"] as? String }
            XCTAssertEqual(Set(names).count, names.count, "names must be unique")
        }
        let biggerByName = Dictionary(uniqueKeysWithValues: bigger.map { ($0["name"] as! String, $0) })
        XCTAssertEqual((biggerByName["efficiency-ed25519 efficiency"]?["value"] as? NSNumber)?.doubleValue, 0.96)
        XCTAssertEqual(biggerByName["efficiency-ed25519 efficiency"]?["unit"] as? String, "ratio")
        XCTAssertEqual(biggerByName["efficiency-ed25519 efficiency"]?["range"] as? String, "± 0.0050")
        XCTAssertEqual(biggerByName["scaling-es256 ×2 throughput"]?["unit"] as? String, "tokens/s")
        let smallerByName = Dictionary(uniqueKeysWithValues: smaller.map { ($0["name"] as! String, $0) })
        XCTAssertEqual(
            (smallerByName["instructions-ed25519 instructions per token"]?["value"] as? NSNumber)?.doubleValue, 29_000)
        XCTAssertEqual((smallerByName["ed25519 p99 latency"]?["value"] as? NSNumber)?.doubleValue, 12_000)
        XCTAssertEqual(smallerByName["ed25519 p99 latency"]?["unit"] as? String, "µs")
        XCTAssertFalse(smaller.contains { ($0["unit"] as? String) == "tokens/s" })
        XCTAssertFalse(bigger.contains { ($0["unit"] as? String) == "µs" })
    }

    private func parse(_ data: Data) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// The Markdown comment: a verdict line, a table whose rows have the header's columns, the
    /// comparison with the regression marked, and the machine.
    func testMarkdownCommentParsesBackIntoItsTables() throws {
        let current = Fixtures.report(instructions: 30_000)
        let baseline = Fixtures.report(instructions: 29_000)
        let rows = Gate.compare(current, against: baseline, thresholds: Thresholds())
        let text = MarkdownFormat.render(
            current, comparisons: rows, status: Gate.status(rows, report: current, thresholds: Thresholds()))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(
            lines[0].hasPrefix("**tokenbench: ❌ regression: instructions-ed25519 instructions/token +3.4%"), lines[0])
        let tables = markdownTables(lines)
        XCTAssertEqual(tables.count, 2)
        let scenarios = tables[0]
        XCTAssertEqual(scenarios[0].first, "scenario")
        XCTAssertEqual(scenarios.count, 1 + current.scenarios.count)
        XCTAssertTrue(scenarios.allSatisfy { $0.count == scenarios[0].count })
        let efficiencyColumn = try XCTUnwrap(scenarios[0].firstIndex(of: "efficiency"))
        XCTAssertEqual(scenarios.first { $0[0] == "efficiency-ed25519" }?[efficiencyColumn], "0.960")
        let comparison = tables[1]
        XCTAssertEqual(comparison[0], ["scenario", "figure", "baseline", "now", "change", "threshold", ""])
        let regression = try XCTUnwrap(comparison.first { $0[0] == "instructions-ed25519" })
        XCTAssertEqual(
            Array(regression[1...]), ["instructions/token", "29000", "30000", "+3.4%", "±1.5%", "❌ **regression**"])
        XCTAssertEqual(comparison.first { $0[0] == "efficiency-ed25519" }?.last, "✅ pass")
        XCTAssertTrue(lines.contains { $0.hasPrefix("Machine: test-host, 2 cores") && $0.contains("valgrind-3.19.0") })
    }

    /// Cells of each `| … |` table, separator rows dropped.
    private func markdownTables(_ lines: [String]) -> [[[String]]] {
        var tables: [[[String]]] = []
        var current: [[String]] = []
        for line in lines + [""] {
            if line.hasPrefix("|") {
                let cells = line.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if !cells.allSatisfy({ $0.hasPrefix("---") || $0.hasPrefix(":--") }) { current.append(cells) }
            } else if !current.isEmpty {
                tables.append(current)
                current = []
            }
        }
        return tables
    }

    func testTableShowsTheComparisonAndTheVerdict() {
        let rows = Gate.compare(Fixtures.report(), against: Fixtures.report(), thresholds: Thresholds())
        let text = TableFormat.render(Fixtures.report(), comparisons: rows, verdict: "pass: 2 gated figures")
        XCTAssertTrue(text.contains("against the baseline:"))
        XCTAssertTrue(text.hasSuffix("pass: 2 gated figures"))
        let header = text.split(separator: "\n")[0]
        XCTAssertTrue(header.hasPrefix("scenario") && header.contains("instr/token"))
    }

    func testCallgrindProfileSumsSelfCostPerObjectAndSkipsInclusiveCallCosts() throws {
        let text = """
            version: 1
            positions: line
            events: Ir
            ob=(1) /usr/bin/tokenbench
            fl=(1) ???
            fn=(1) main
            0 100
            cob=(2) /usr/lib/x86_64-linux-gnu/libsodium.so.23.3.0
            cfn=(2) crypto_sign_verify_detached
            calls=1 0
            0 5000
            +1 20
            ob=(2)
            fn=(2)
            0 4000
            * 1000
            ob=(3) /usr/lib/x86_64-linux-gnu/libcrypto.so.3
            fn=(3) EVP_DigestVerify
            0 300
            ob=(1)
            fn=(1)
            -1 7
            totals: 5427
            """
        let profile = try CallgrindProfile(parsing: text)
        XCTAssertEqual(profile.instructionsByObject["/usr/bin/tokenbench"], 127)
        XCTAssertEqual(profile.instructions(inObjectsNamed: ["libsodium", "libcrypto"]), 5300)
        XCTAssertEqual(profile.total, 5427)
        XCTAssertEqual(profile.declaredTotal, 5427)
    }

    func testCallgrindProfileSumsSelfCostPerFunction() throws {
        let text = """
            events: Ir
            ob=(1) /usr/bin/tokenbench
            fn=(1) main
            0 100
            cfn=(2) tv_p256_table_verify
            calls=1 0
            0 900
            fn=(2)
            0 400
            cob=(2) /usr/lib/x86_64-linux-gnu/libcrypto.so.3
            cfn=(3) tv_order_lookalike
            calls=1 0
            0 300
            fn=(4) tv_order_inverse_public
            0 200
            ob=(2)
            fn=(3)
            0 300
            """
        let profile = try CallgrindProfile(parsing: text)
        XCTAssertEqual(profile.total, 1000)
        XCTAssertEqual(
            profile.instructions(
                inFunctionsPrefixed: ["tv_order_", "tv_p256_table_"], outsideObjectsNamed: ["libcrypto"]), 600)
        XCTAssertEqual(profile.instructions(inFunctionsPrefixed: ["main"], outsideObjectsNamed: []), 100)
    }

    func testCallgrindProfileCountsCallsIntoTheCLibraryByCaller() throws {
        // main and libcrypto's EC_POINT_mul both call malloc; only the library's calls are its own.
        let text = """
            events: Ir
            ob=(1) /usr/bin/tokenverify
            fn=(1) main
            0 100
            cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
            cfn=(2) malloc
            calls=2 0
            0 80
            cob=(3) /usr/lib/x86_64-linux-gnu/libcrypto.so.3
            cfn=(3) EC_POINT_mul
            calls=1 0
            0 1150
            ob=(3)
            fn=(3)
            0 1000
            cob=(2)
            cfn=(2)
            calls=3 0
            0 150
            ob=(2)
            fn=(2)
            0 230
            """
        let profile = try CallgrindProfile(parsing: text)
        XCTAssertEqual(profile.total, 1330)
        let isLibrary = { (file: String, _: String) in file.hasPrefix("libcrypto") }
        let isLibc = { (file: String, _: String) in file.hasPrefix("libc.so") }
        XCTAssertEqual(profile.instructions(calledFrom: isLibrary, into: isLibc), 150)
        let isMain = { (_: String, function: String) in function == "main" }
        XCTAssertEqual(profile.instructions(calledFrom: isMain, into: isLibc), 80)
        let isPointMultiplication = { (_: String, function: String) in function == "EC_POINT_mul" }
        XCTAssertEqual(profile.instructions(calledFrom: isMain, into: isPointMultiplication), 1150)
        XCTAssertEqual(profile.instructions(calledFrom: isLibrary, into: { file, _ in file.hasPrefix("libsodium") }), 0)
    }
}

import Foundation
import Testing
import TokenVerifier

/// The documents that describe the code, checked against it (so a change to one without the
/// other fails here): spec §5's table of checks and reasons against `Reason` and
/// `StandardChecks`, and docs/layout.md's module map against the modules `Package.swift` builds.
@Suite struct DocsPinnedTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func text(_ path: String) throws -> String {
        try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// The code-spans (`` `…` ``) of `line`.
    func codeSpans(_ line: Substring) -> [String] {
        line.matches(of: #/`([^`]+)`/#).map { String($0.output.1) }
    }

    /// Spec §5's rows: (order, reasons), in table order.
    func specChecks() throws -> [(order: String, reasons: [String])] {
        let spec = try text("docs/spec.md")
        let section = try #require(spec.split(separator: "## 5. Checks and reasons").dropFirst().first)
        return section.split(separator: "\n").prefix { !$0.hasPrefix("## ") }.compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count > 3, cells[1].first?.isNumber == true else { return nil }
            return (cells[1], codeSpans(Substring(cells[2])))
        }
    }

    /// Every reason code of `Reason`, in its declared order, is the spec's, in the table's order.
    @Test func theSpecsReasonsAreTheCodesReasonsInOrder() throws {
        let spec = try specChecks().flatMap(\.reasons)
        #expect(spec == Reason.allCases.map(\.rawValue))
    }

    /// `StandardChecks`' table names each check with the spec's order and reasons, and
    /// `BeforeSignature` runs the checks in that order.
    @Test func standardChecksFollowTheSpecsTable() throws {
        let source = try text("Sources/TokenVerifier/Checks/StandardChecks.swift")
        var documented: [(order: String, reasons: [String], check: String)] = []
        for line in source.split(separator: "\n") where line.hasPrefix("/// | ") && line.contains("``") {
            let cells = line.dropFirst(4).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let check = cells[2].replacingOccurrences(of: "``", with: "")
            documented.append((cells[0], codeSpans(Substring(cells[1])), check))
        }
        let spec = Dictionary(try specChecks().map { ($0.order, $0.reasons) }, uniquingKeysWith: +)
        for row in documented {
            let expected = try #require(spec[row.order], "order \(row.order) is not in spec §5")
            for reason in row.reasons {
                let matches =
                    reason.hasSuffix("*")
                    ? expected.contains { $0.hasPrefix(reason.dropLast()) } : expected.contains(reason)
                #expect(matches, "StandardChecks names \(reason) at \(row.order); spec §5 has \(expected)")
            }
        }
        let run = source.matches(of: #/runCheck\((\w+)\(\)/#).map { String($0.output.1) }
        let beforeSignature = documented.map(\.check).filter { $0 != "SignatureCheck" }
        #expect(run == beforeSignature, "BeforeSignature runs \(run); its table lists \(beforeSignature)")
        #expect(Set(documented.map(\.order)) == Set(try specChecks().map(\.order)).subtracting(["1", "2"]))
    }

    /// docs/layout.md's map names every module under Sources/, and only those; each is a target
    /// of Package.swift.
    @Test func theLayoutMapsEveryModule() throws {
        let layout = try text("docs/layout.md")
        let block = try #require(layout.split(separator: "```").dropFirst().first)
        let sourcesBlock = block.split(separator: "\nTests/").first ?? block
        var mapped: Set<String> = []
        // A module's line: two spaces, its name (or names, comma-separated), then at least two spaces.
        for line in sourcesBlock.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            let body = line.dropFirst(2)
            let names = body.range(of: "  ").map { body[..<$0.lowerBound] } ?? body
            for name in names.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                if trimmed.first?.isLetter == true && !trimmed.hasSuffix("/") { mapped.insert(trimmed) }
            }
        }
        let sources = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("Sources").path
        ).filter { !$0.hasPrefix(".") }
        #expect(mapped == Set(sources), "layout.md maps \(mapped.sorted()); Sources holds \(sources.sorted())")
        let package = try text("Package.swift")
        for module in sources {
            #expect(package.contains("name: \"\(module)\""), "\(module) is not a target of Package.swift")
        }
    }
}

import Foundation
import TestSupport
import Testing

/// Help that reads well at 80 columns: every command's help, rendered with COLUMNS=80 (as when
/// piped), has no line broken early inside a paragraph (a hard line break in the source shows as
/// a line that the next line's first word would still have fitted on) and no option with its
/// default said twice.
@Suite struct HelpTests {
    static let commands: [[String]] = [
        [], ["verify"], ["keys"], ["keys", "import"], ["keys", "list"], ["keygen"], ["sign"], ["gen"], ["inspect"],
        ["certificate"], ["status-list"],
    ]

    static func help(_ command: [String]) throws -> String {
        let result = try External.run(Tool.binary.path, command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        return result.stdout
    }

    /// Lines of `text` that end early: the next line continues the same paragraph (same
    /// indentation, not a list item, an example or a new entry) and its first word would have
    /// fitted on this line (the argument parser fills lines to one column less than the width).
    static func earlyBreaks(_ text: String, width: Int = 80) -> [String] {
        let lines = text.components(separatedBy: "\n")
        var found: [String] = []
        func indentation(_ line: String) -> Int { line.prefix(while: { $0 == " " }).count }
        for (line, next) in zip(lines, lines.dropFirst()) {
            let body = next.trimmingCharacters(in: .whitespaces)
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !body.isEmpty,
                indentation(line) == indentation(next),
                !line.hasSuffix(":"),
                !body.hasPrefix("-"), !body.hasPrefix("tokenverify"), !body.hasPrefix("|"), !body.hasPrefix("$"),
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("-")  // an option's name line
            else { continue }
            let firstWord = body.prefix(while: { $0 != " " })
            if line.count + 1 + firstWord.count < width { found.append(line + "⏎" + next) }
        }
        return found
    }

    @Test(arguments: commands)
    func helpReadsWellAt80Columns(_ command: [String]) throws {
        let text = try Self.help(command)
        #expect(!text.isEmpty)
        #expect(Self.earlyBreaks(text).isEmpty, "\(command): \(Self.earlyBreaks(text))")
        // the parser's usage line is not wrapped
        for line in text.components(separatedBy: "\n") where !line.hasPrefix("USAGE:") {
            #expect(line.count <= 80, "\(command): \(line)")
        }
        // An option's help is its lines up to the next option: "(default:" at most once in it.
        let entries = text.components(separatedBy: "\n  -")
        for entry in entries {
            #expect(entry.components(separatedBy: "(default:").count <= 2, "\(command): \(entry)")
            #expect(!(entry.contains("(values:") && entry.contains("int or prod")), "\(command): \(entry)")
        }
    }

    /// The top-level help names what the tool does beyond JWS: CWTs, chains under trust anchors,
    /// status lists, fetch and metrics, each with the option or command that turns it on.
    @Test func theTopLevelHelpCoversEveryFormatAndService() throws {
        let text = try Self.help([]).replacingOccurrences(of: "\n", with: " ").split(separator: " ")
            .joined(separator: " ")
        for phrase in [
            "CWT", "COSE_Sign1", "--trust-anchors", "x5c", "--status-lists", "Status List", "fetch", "--watch",
            "--metrics-file", "Prometheus", "inspect tokens.txt",
        ] {
            #expect(text.contains(phrase), "top-level help lacks \(phrase)")
        }
        #expect(!text.contains("Tokens are JWS/JWT (Ed25519, EdDSA or ES256) that"), "JWS only")
    }

    /// Each subcommand's abstract, as the top-level help lists it, says what the command reads.
    @Test func subcommandAbstractsNameBothFormats() throws {
        let lines = try Self.help([]).components(separatedBy: "\n")
        func entry(_ name: String) -> String {
            guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(name) ") }) else { return "" }
            var text = lines[start]
            for line in lines[(start + 1)...] {
                guard line.hasPrefix("        "), !line.hasPrefix("  \(name)") else { break }
                text += " " + line.trimmingCharacters(in: .whitespaces)
            }
            return text
        }
        #expect(entry("inspect").contains("CWT") && entry("inspect").contains("file"), "\(entry("inspect"))")
        #expect(entry("sign").contains("CWT") && entry("sign").contains("malformed"), "\(entry("sign"))")
        #expect(entry("verify").contains("CWT"), "\(entry("verify"))")
    }

    @Test func theDetectorFindsAHardBreakAndAcceptsWrappedText() {
        #expect(
            !Self.earlyBreaks("  Tokens are JWS/JWT that let one device send certain\n  commands to one object\n")
                .isEmpty)
        #expect(
            Self.earlyBreaks(
                "  Tokens are JWS/JWT (Ed25519, EdDSA or ES256) that let one device send certain\n  commands to one object\n"
            ).isEmpty)
    }
}

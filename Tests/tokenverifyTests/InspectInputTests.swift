import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// `inspect`'s input rule (spec §7): `-` (or nothing) reads standard input, an argument that
/// names an existing file reads that file, anything else is a token; a file or standard input
/// is inspected line by line, one JSON line out for each non-blank line in.
@Suite struct InspectInputTests {
    /// A JWS and a CWT over the workspace's standard claims, both signed by its Ed25519 key.
    static func tokens(_ space: Workspace) throws -> (jws: String, cwt: String) {
        let cwt = try CWTSigner(key: space.ed).sign(claims: Array(Workspace.claims().utf8))
        return (space.token(), cwt)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aFileOfTokensIsInspectedLineByLine() throws {
        let space = try Workspace()
        let (jws, cwt) = try Self.tokens(space)
        let file = try space.write("tokens.txt", jws + "\n\n" + cwt + "\r\n")
        let output = try Tool.run(["inspect", file])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.count == 2)
        guard output.lines.count == 2 else { return }
        let first = try Self.object(output.lines[0])
        #expect(first["UNVERIFIED"] != nil)
        #expect((first["claims"] as? [String: Any])?["sub"] as? String == "phone-1")
        let second = try Self.object(output.lines[1])
        #expect(second["format"] as? String == "cwt")
    }

    @Test(arguments: [["inspect"], ["inspect", "-"]])
    func standardInputIsInspectedLineByLine(_ arguments: [String]) throws {
        let space = try Workspace()
        let (jws, cwt) = try Self.tokens(space)
        let output = try Tool.run(arguments, input: jws + "\n" + cwt + "\n" + jws + "\n")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.count == 3)
        #expect(try output.lines.map { try Self.object($0)["format"] as? String } == [nil, "cwt", nil])
    }

    @Test func aLineThatIsNoTokenIsNamedAndTheOthersAnswered() throws {
        let space = try Workspace()
        let (jws, cwt) = try Self.tokens(space)
        let file = try space.write("mixed.txt", jws + "\nnot.a-token\n" + cwt + "\n")
        let output = try Tool.run(["inspect", file])
        #expect(output.status == 1)
        #expect(output.lines.count == 2)
        #expect(output.stderr.contains("\(file):2: not a compact token"), "\(output.stderr)")
        let piped = try Tool.run(["inspect"], input: "AAAA*\n" + jws + "\n")
        #expect(piped.status == 1)
        #expect(piped.lines.count == 1)
        #expect(piped.stderr.contains("<stdin>:1: not a CWT"), "\(piped.stderr)")
    }

    @Test func aTokenArgumentIsStillATokenAndABadOneAUsageError() throws {
        let space = try Workspace()
        let output = try Tool.run(["inspect", space.token()])
        #expect(output.status == 0)
        #expect(output.lines.count == 1)
        let missing = try Tool.run(["inspect", space.path("no-such-tokens.txt")])
        #expect(missing.status == 2)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("no file of that name"), "\(missing.stderr)")
    }

    @Test func aFolderIsRefusedNamingWhatItIs() throws {
        let space = try Workspace()
        let output = try Tool.run(["inspect", space.directory.path])
        #expect(output.status == 2)
        #expect(output.stderr.contains("\(space.directory.path): is a directory"), "\(output.stderr)")
    }

    @Test func theHelpStatesTheRule() throws {
        let help = try Tool.run(["inspect", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        #expect(help.contains("names an existing file"), "\(help)")
        #expect(help.contains("one JSON line for each"), "\(help)")
    }
}

import Foundation
import TestSupport
import Testing

/// The README's quick tour runs verbatim (every `$` command of its console blocks, in order, in
/// one shell started at the checkout's root, with the built tool first on PATH) and writes
/// nothing into the checkout.
@Suite struct ReadmeTourTests {
    /// The commands of the console blocks of the README's "Quick tour" section, with their
    /// continuation lines.
    static func tourCommands() throws -> [String] {
        let readme = try String(contentsOf: Tool.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Quick tour"))
        let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        var commands: [String] = []
        var inConsole = false
        var continuing = false
        for line in readme[start.upperBound..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                continue
            }
            guard inConsole else { continue }
            if continuing {
                commands[commands.count - 1] += "\n" + line
            } else if line.hasPrefix("$ ") {
                commands.append(String(line.dropFirst(2)))
            } else {
                continue
            }
            continuing = line.hasSuffix("\\")
        }
        return commands
    }

    @Test func theTourRunsVerbatimInAScratchDirectory() throws {
        try External.require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
            "no OpenSSL command line at /usr/bin/openssl (Debian's openssl)")
        let commands = try Self.tourCommands()
        #expect(commands.count >= 10)
        #expect(commands.contains { $0.hasPrefix("cd \"$(mktemp -d)\"") })
        let before = try FileManager.default.contentsOfDirectory(atPath: Tool.repository.path).sorted()
        let script =
            "set -euo pipefail\ncd \"$1\"\nexport PATH=\"$2:$PATH\"\n" + commands.joined(separator: "\n") + "\n"
        let result = try External.run(
            "/bin/bash", ["-c", script, "tour", Tool.repository.path, Tool.binary.deletingLastPathComponent().path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""kid":"op-2026","alg":"EdDSA""#))
        #expect(result.stdout.contains(#""reason":"command_not_permitted""#))
        #expect(result.stderr.contains("imported 1 key: op-pem"))
        #expect(result.stdout.contains("op-pem\tOKP/Ed25519\t-\tprod\t-\t"))
        let after = try FileManager.default.contentsOfDirectory(atPath: Tool.repository.path).sorted()
        #expect(after == before, "the tour wrote into the checkout")
    }
}

import Foundation
import TestSupport
import Testing

/// One spelling of the per-key table memory on the command line: `--table-memory KIND=BYTES`. A
/// kind given twice is refused (the earlier per-kind flags, now hidden, count as giving it), never
/// silently overridden.
@Suite struct TableMemoryOptionTests {
    @Test func aKindGivenTwiceIsRefused() throws {
        let space = try Workspace()
        let token = space.token() + "\n"
        let twice = try Tool.run(
            space.verifyArguments + ["--table-memory", "es256=1", "--table-memory", "es256=2"], input: token)
        #expect(twice.status == 2 && twice.stderr.contains("the memory of es256 is given twice"), "\(twice.stderr)")
        let mixed = try Tool.run(
            space.verifyArguments + ["--table-memory", "ed25519=0", "--ed25519-table-memory", "5"], input: token)
        #expect(mixed.status == 2 && mixed.stderr.contains("ed25519 is given twice"), "\(mixed.stderr)")
        let bad = try Tool.run(space.verifyArguments + ["--table-memory", "rsa=5"], input: token)
        #expect(bad.status == 2 && bad.stderr.contains("KIND one of es256, ed25519"), "\(bad.stderr)")
        let old = try Tool.run(space.verifyArguments + ["--es256-table-memory", "0"], input: token)
        #expect(old.status == 0 && old.stdout.contains("\"valid\":true"))
        #expect(old.stderr.contains("deprecated: use --table-memory KIND=BYTES"), "\(old.stderr)")
        let help = try Tool.run(["verify", "--help"])
        #expect(help.stdout.contains("--table-memory") && !help.stdout.contains("--es256-table-memory"))
    }
}

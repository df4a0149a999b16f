import TestSupport
import Testing

@testable import TokenVerifier

/// The per-key table kinds are listed once (``KeyTableKind/all``), and each kind's memory comes
/// from one map of the options by the kind's name, which the named options read and write.
@Suite struct KeyTableKindTests {
    let fixtures = Fixtures()

    @Test func theKindsAndTheirOptions() {
        #expect(VerificationOptions.tableKinds.map(\.name) == ["es256", "ed25519"])
        var options = VerificationOptions(tableMemory: TableMemory(es256: 0))
        #expect(options.tableMemory.es256 == 0 && options.tableMemory.ed25519 == 64 << 20)
        options.tableMemory[kind: "ed25519"] = 5
        #expect(options.tableMemory.ed25519 == 5 && options.tableMemory[kind: "nope"] == nil)
        #expect(KeyTableKind.all.map { $0.memory(options) } == [0, 5])
        #expect(VerificationOptions.tableKinds.allSatisfy { TableMemory()[kind: $0.name] == 64 << 20 })
    }

    /// A kind given no memory builds no table; the other kind still does.
    @Test func aKindWithNoMemoryBuildsNoTable() throws {
        let verifier = Verifier(
            keys: fixtures.keySet, options: VerificationOptions(tableMemory: TableMemory(es256: 0)))
        verifier.waitForKeyTables()
        let keys = verifier.keys.keys
        #expect(keys.compactMap(\.p256).allSatisfy { $0.lazyTable.table == nil })
        if Ed25519KeyTable.isAvailable {
            #expect(keys.compactMap(\.ed25519).contains { $0.lazyTable.table != nil })
        }
    }
}

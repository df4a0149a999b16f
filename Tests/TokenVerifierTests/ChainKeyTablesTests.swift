import Testing

@testable import TokenTools
@testable import TokenVerifier

/// Per-key tables for the leaf keys of chains (spec §3b "Cost"): only a leaf key whose chain is
/// used again takes a share of the table budget, a freed table gives its share back, and the
/// leaves' key objects are held only while a cached chain uses them.
@Suite struct ChainKeyTablesTests {
    /// The `x5c` value a JWS carries for `fixture`'s chain.
    static func x5c(_ fixture: ChainFixture) -> [UInt8] {
        Array(
            ("[" + fixture.chain.map { "\"" + StandardBase64.encode($0.der) + "\"" }.joined(separator: ",") + "]").utf8)
    }

    static func key(_ trust: ChainTrust, _ value: [UInt8]) throws -> ChainKey {
        try value.withUnsafeBufferPointer {
            try trust.key(for: $0, format: .jws, at: ChainFixture.during, signatureCache: nil).get()
        }
    }

    @Test func aLeafKeyIsArmedWhenItsChainIsUsedAgain() throws {
        let fixture = try ChainFixture()
        let trust = ChainTrust(anchors: try fixture.anchors(), options: VerificationOptions())
        let value = Self.x5c(fixture)
        let first = try Self.key(trust, value)
        let firstArmed = first.tablesArmed.load(ordering: .relaxed)
        #expect(!firstArmed, "a chain seen once gives its key no table budget")
        #expect(first.key.ed25519?.lazyTable.isArmed == false)
        let again = try Self.key(trust, value)
        let againArmed = again.tablesArmed.load(ordering: .relaxed)
        #expect(again === first && againArmed)
        #expect(again.key.ed25519?.lazyTable.isArmed == true)
    }

    @Test func aFreedTableGivesItsShareBack() throws {
        let budget = TableBudget(tables: 1)
        let bytes = SigningKey.generate(algorithm: .ed25519, keyID: "k").publicKeyMaterial.publicKey
        var key: Ed25519PublicKey? = Ed25519PublicKey(bytes)
        key!.arm(budget)
        key!.requestTable()
        KeyTableBuilder.waitUntilIdle()
        #expect(key!.table != nil && budget.remainingTables == 0)
        let other = Ed25519PublicKey(bytes)
        other.arm(budget)
        other.requestTable()
        KeyTableBuilder.waitUntilIdle()
        #expect(other.table == nil, "the budget is spent while the first key lives")
        key = nil
        #expect(budget.remainingTables == 1, "the freed table's share is back")
    }

    @Test func leafKeyObjectsAreHeldWhileInUseAndForgottenAfter() throws {
        let keys = LeafKeys(limit: 1)
        let a = LeafKey.ed25519(SigningKey.generate(algorithm: .ed25519, keyID: "a").publicKeyMaterial.publicKey)
        let b = LeafKey.ed25519(SigningKey.generate(algorithm: .ed25519, keyID: "b").publicKeyMaterial.publicKey)
        var held = keys.objects(for: a)
        #expect(held?.ed25519 != nil && keys.objects(for: a)?.ed25519 === held?.ed25519, "shared while in use")
        let unshared = keys.objects(for: b)
        #expect(unshared?.ed25519 !== keys.objects(for: b)?.ed25519, "beyond the limit a key has objects of its own")
        held = nil
        let kept = keys.objects(for: b)
        #expect(kept?.ed25519 === keys.objects(for: b)?.ed25519, "a gone key's place is taken")
        #expect(keys.count == 1)
        withExtendedLifetime(kept) {}
    }
}

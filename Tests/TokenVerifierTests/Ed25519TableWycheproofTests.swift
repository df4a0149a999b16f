import TestSupport
import Testing

@testable import TokenVerifier

/// Every Wycheproof Ed25519 vector through `crypto_sign_verify_detached` and through the key's
/// precomputed table, alone and all of them as one batch (`tv_ed25519_table_verify_many`, the
/// keys mixed): equal verdicts, and equal to Wycheproof's.
@Suite struct Ed25519TableWycheproofTests {
    @Test func everyVector() throws {
        try Ed25519PathComparison.requireTablePath()
        var vectors = 0
        var compared = 0
        var valid = 0
        var batch: [(path: Ed25519PathComparison, signature: [UInt8], message: [UInt8])] = []
        var expected: [Bool] = []
        for group in try SignatureBackendTests().loadVectors("ed25519_test.json") {
            let publicKey = hexBytes((group["publicKey"] as! [String: Any])["pk"] as! String)
            let paths = try #require(
                Ed25519PathComparison(publicKey: publicKey), "libsodium accepts every Wycheproof key")
            for test in group["tests"] as! [[String: Any]] {
                vectors += 1
                let label = "tcId \(test["tcId"]!): \(test["comment"]!)"
                let signature = hexBytes(test["sig"] as! String)
                let message = hexBytes(test["msg"] as! String)
                let verdicts = paths.verdicts(signature: signature, message: message)
                batch.append((paths, signature, message))
                expected.append(verdicts.sodium)
                #expect(
                    verdicts.sodium == verdicts.table, "\(label): libsodium \(verdicts.sodium), table \(verdicts.table)"
                )
                #expect(
                    verdicts.table == (test["result"] as! String == "valid"), "\(label): expected \(test["result"]!)")
                compared += 1
                if verdicts.table { valid += 1 }
            }
        }
        #expect(vectors == 151 && compared == 151)
        #expect(valid > 0 && valid < vectors)
        #expect(batch.count == 151 && Ed25519PathComparison.batchedVerdicts(batch) == expected)
    }

    /// A key libsodium refuses gets no table: small order, not canonical, not a point.
    @Test func refusedKeysGetNoTable() throws {
        try Ed25519PathComparison.requireTablePath()
        let identity = [UInt8(1)] + [UInt8](repeating: 0, count: 31)
        let nonCanonical = [UInt8(0xEE)] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]  // y = p + 1
        #expect(Ed25519KeyTable(publicKey: identity) == nil)
        #expect(Ed25519KeyTable(publicKey: nonCanonical) == nil)
        #expect(Ed25519KeyTable(publicKey: [UInt8](repeating: 0, count: 31)) == nil)
        // y = 2: (y² − 1)/(d·y² + 1) is not a square modulo p, so no x exists.
        let notAPoint = [UInt8(2)] + [UInt8](repeating: 0, count: 31)
        #expect(Ed25519KeyTable(publicKey: notAPoint) == nil)
    }
}

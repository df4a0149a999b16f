import TestSupport
import Testing

@testable import TokenVerifier

/// Every Wycheproof ECDSA P-256 SHA-256 vector through EVP_PKEY_verify and through the key's
/// precomputed table, alone and with each group's vectors as one batch (their inversions shared):
/// equal verdicts, and equal to Wycheproof's where it says valid or invalid.
@Suite struct P256TableWycheproofTests {
    struct Tally {
        var vectors = 0, compared = 0, refusedEncodings = 0, valid = 0, batched = 0
    }

    func run(_ file: String, signature: ([UInt8]) -> [UInt8]?) throws -> Tally {
        var tally = Tally()
        for group in try SignatureBackendTests().loadVectors(file) {
            let point = hexBytes((group["publicKey"] as! [String: Any])["uncompressed"] as! String)
            let paths = try #require(P256PathComparison(x: Array(point[1..<33]), y: Array(point[33..<65])))
            var batch: [(signature: [UInt8], message: [UInt8])] = []
            var evpVerdicts: [Bool] = []
            for test in group["tests"] as! [[String: Any]] {
                tally.vectors += 1
                let result = test["result"] as! String
                let label = "tcId \(test["tcId"]!): \(test["comment"]!)"
                guard let raw = signature(hexBytes(test["sig"] as! String)) else {
                    // Not an encoding of two integers that fit 32 bytes: no r‖s, so refused.
                    #expect(result != "valid", "\(label): a valid vector did not convert")
                    tally.refusedEncodings += 1
                    continue
                }
                let message = hexBytes(test["msg"] as! String)
                let verdicts = paths.verdicts(signature: raw, message: message)
                #expect(verdicts.evp == verdicts.table, "\(label): EVP \(verdicts.evp), table \(verdicts.table)")
                batch.append((raw, message))
                evpVerdicts.append(verdicts.evp)
                if result != "acceptable" {
                    #expect(verdicts.table == (result == "valid"), "\(label): expected \(result)")
                }
                tally.compared += 1
                if verdicts.table { tally.valid += 1 }
            }
            // The group's vectors once more as one batch, sharing their inversions.
            #expect(paths.batchedVerdicts(batch) == evpVerdicts, "the group's vectors verified as a batch")
            tally.batched += batch.count
        }
        return tally
    }

    @Test func p1363Vectors() throws {
        let tally = try run("ecdsa_secp256r1_sha256_p1363_test.json") { $0 }
        #expect(tally.vectors == 262 && tally.compared == 262 && tally.batched == 262)
        #expect(tally.valid > 0)
    }

    @Test func derVectorsThroughRawForm() throws {
        let tally = try run("ecdsa_secp256r1_sha256_test.json", signature: derSignatureToRawForm)
        #expect(tally.vectors == 484)
        #expect(
            tally.compared > 100 && tally.refusedEncodings > 100 && tally.batched == tally.compared,
            "compared \(tally.compared), refused \(tally.refusedEncodings), batched \(tally.batched)")
        #expect(tally.valid > 0)
    }

    @Test func derConversion() {
        #expect(
            derSignatureToRawForm([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02]) == [UInt8](repeating: 0, count: 31)
                + [1] + [UInt8](repeating: 0, count: 31) + [2])
        #expect(derSignatureToRawForm([0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x02]) == nil)  // non-minimal
        #expect(derSignatureToRawForm([0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x02]) == nil)  // negative
        #expect(derSignatureToRawForm([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0x00]) == nil)  // trailing
    }
}

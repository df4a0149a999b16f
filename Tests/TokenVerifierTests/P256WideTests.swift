import CTokenCrypto
import Foundation
import TestSupport
import Testing

@testable import TokenTools
@testable import TokenVerifier

/// The ES256 wide path (`p256_wide.c`: eight signatures at a time with AVX-512 IFMA, through
/// `tv_p256_table_verify_many`) against EVP_PKEY_verify, verdict by verdict: randomized signatures
/// over several keys mixed in batches of 1 to 100 (so groups of eight hold different keys and a
/// batch's last group has empty lanes), every Wycheproof P-256 SHA-256 P1363 vector, and the
/// self-test, which a broken wide path must fail. Skipped, with the reason, where the CPU lacks
/// AVX-512 IFMA or TOKENVERIFY_SIGNATURE_PATH turns the path off; the 10,000,000-signature
/// comparison is `scripts/compare-p256-wide 10000000`.
@Suite struct P256WideTests {
    /// Returns when the wide path is on; skips on a CPU without it (or with it forced off), and
    /// fails when its self-test failed.
    static func requireWide() throws {
        let status = tv_p256_wide_status()
        if status == TV_P256_WIDE_NO_CPU || status == TV_P256_WIDE_FORCED_OFF {
            try Test.cancel("skipped: the ES256 wide path is off here: \(P256KeyTable.path)")
        }
        try #require(status == TV_P256_WIDE_ON, "\(P256KeyTable.path)")
    }

    /// The wide path's verdicts on `inputs` (each with its key's table), as one call: a signature
    /// that is not 64 bytes is refused without it, as check 12 refuses it.
    static func wideVerdicts(_ inputs: [(table: P256KeyTable, signature: [UInt8], message: [UInt8])]) -> [Bool] {
        let taken = inputs.indices.filter { inputs[$0].signature.count == 64 }
        var bytes: [UInt8] = []
        var offsets: [(signature: Int, message: Int, length: Int)] = []
        for index in taken {
            offsets.append((bytes.count, bytes.count + 64, inputs[index].message.count))
            bytes += inputs[index].signature + inputs[index].message
        }
        var verdicts = [UInt8](repeating: 0xAA, count: taken.count)
        let scratch = tv_p256_table_scratch_new()
        defer { tv_p256_table_scratch_free(scratch) }
        bytes.withUnsafeBufferPointer { all in
            let base = all.baseAddress!
            let signatures: [UnsafePointer<UInt8>?] = offsets.map { base + $0.signature }
            let messages: [UnsafePointer<UInt8>?] = offsets.map { base + $0.message }
            let lengths = offsets.map(\.length)
            let tables: [UnsafeMutableRawPointer?] = taken.map { inputs[$0].table.handle }
            withExtendedLifetime(inputs) {
                tv_p256_table_verify_many(tables, scratch, messages, lengths, signatures, taken.count, &verdicts)
            }
        }
        var result = [Bool](repeating: false, count: inputs.count)
        for (place, index) in taken.enumerated() {
            precondition(verdicts[place] <= 1, "no verdict written")
            result[index] = verdicts[place] == 1
        }
        return result
    }

    @Test func theWideSelfTestPassesAndABrokenPathFailsIt() throws {
        try Self.requireWide()
        #expect(tv_p256_wide_self_test_for_testing(0) == 1)
        #expect(tv_p256_wide_self_test_for_testing(1) == 0, "a wide path answering wrongly passed the self-test")
        #expect(tv_p256_wide_self_test_for_testing(0) == 1, "the break did not end with its test")
    }

    @Test func theVersionNamesTheWidePath() throws {
        try Self.requireWide()
        #expect(P256KeyTable.path.path == .wide && P256KeyTable.isWide, "\(P256KeyTable.path)")
        #expect(P256KeyTable.path.description.hasPrefix("ES256: wide ("), "\(P256KeyTable.path)")
        #expect(P256KeyTable.bytesPerTable == 160_000 + 151_616)
    }

    /// 20,000 in the default run; more with TOKENVERIFY_P256_WIDE_COMPARE=COUNT.
    @Test func randomizedSignaturesGetEVPsVerdicts() throws {
        try Self.requireWide()
        let environment = ProcessInfo.processInfo.environment["TOKENVERIFY_P256_WIDE_COMPARE"]
        let count =
            try environment.map { try #require(Int($0), "TOKENVERIFY_P256_WIDE_COMPARE=\($0) is not a count") }
            ?? 20_000
        var random = SystemRandomNumberGenerator()
        let keys = (0..<6).map { _ in P256PrivateKey() }
        let paths = try keys.map { try #require(P256PathComparison(x: $0.x, y: $0.y)) }
        typealias Variant = P256TableRandomizedTests.Variant
        var pending: [(table: P256KeyTable, signature: [UInt8], message: [UInt8])] = []
        var expected: [(evp: Bool, variant: Variant)] = []
        var batchSize = Int.random(in: 1...100, using: &random)
        var mismatches: [String] = []
        var checked: [Variant: Int] = [:]
        var valid: [Variant: Int] = [:]
        func flush() {
            let verdicts = Self.wideVerdicts(pending)
            for (index, verdict) in verdicts.enumerated() {
                let (evp, variant) = expected[index]
                checked[variant, default: 0] += 1
                if verdict { valid[variant, default: 0] += 1 }
                if verdict != evp {
                    mismatches.append(
                        "\(variant): EVP \(evp), wide \(verdict): signature \(pending[index].signature), message \(pending[index].message)"
                    )
                }
            }
            pending = []
            expected = []
            batchSize = Int.random(in: 1...100, using: &random)
        }
        var index = 0
        while index < count {
            let keyIndex = Int.random(in: 0..<keys.count, using: &random)
            let message = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let signature = keys[keyIndex].sign(message)
            for variant in Variant.allCases where index < count {
                index += 1
                var input = P256TableRandomizedTests.apply(
                    variant, signature: signature, message: message.isEmpty ? [0] : message, random: &random)
                if variant != .flipMessage && message.isEmpty { input.message = message }
                // Now and then under another key than the signer's.
                let verifier = Int.random(in: 0..<16, using: &random) == 0 ? (keyIndex + 1) % keys.count : keyIndex
                let evp = input.signature.withUnsafeBufferPointer { s in
                    input.message.withUnsafeBufferPointer { m in
                        paths[verifier].context.verifyWithEVP(signature: s, message: m)
                    }
                }
                pending.append((paths[verifier].key.table!, input.signature, input.message))
                expected.append((evp, variant))
                if pending.count == batchSize { flush() }
            }
        }
        if !pending.isEmpty { flush() }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(3))")
        #expect(checked.values.reduce(0, +) == count)
        // Every signature the test made verifies (unless checked under another key); a changed one almost never does.
        #expect((valid[.valid] ?? 0) > 0 && (valid[.highS] ?? 0) > 0)
        #expect((valid[.flipMessage] ?? 0) == 0 && (valid[.r0] ?? 0) == 0 && (valid[.sN] ?? 0) == 0)
    }

    /// Every vector of the P1363 file, all groups' keys mixed in one call.
    @Test func wycheproofP1363VectorsGetEVPsVerdicts() throws {
        try Self.requireWide()
        var inputs: [(table: P256KeyTable, signature: [UInt8], message: [UInt8])] = []
        var expected: [(evp: Bool, result: String, label: String)] = []
        var paths: [P256PathComparison] = []
        for group in try SignatureBackendTests().loadVectors("ecdsa_secp256r1_sha256_p1363_test.json") {
            let point = hexBytes((group["publicKey"] as! [String: Any])["uncompressed"] as! String)
            let path = try #require(P256PathComparison(x: Array(point[1..<33]), y: Array(point[33..<65])))
            paths.append(path)
            for test in group["tests"] as! [[String: Any]] {
                let signature = hexBytes(test["sig"] as! String)
                let message = hexBytes(test["msg"] as! String)
                let evp = signature.withUnsafeBufferPointer { s in
                    message.withUnsafeBufferPointer { m in path.context.verifyWithEVP(signature: s, message: m) }
                }
                inputs.append((path.key.table!, signature, message))
                expected.append((evp, test["result"] as! String, "tcId \(test["tcId"]!): \(test["comment"]!)"))
            }
        }
        let verdicts = Self.wideVerdicts(inputs)
        #expect(inputs.count == 262)
        #expect(inputs.filter { $0.signature.count == 64 }.count > 200)
        for (verdict, want) in zip(verdicts, expected) {
            #expect(verdict == want.evp, "\(want.label): EVP \(want.evp), wide \(verdict)")
            if want.result != "acceptable" {
                #expect(verdict == (want.result == "valid"), "\(want.label): expected \(want.result)")
            }
        }
        #expect(verdicts.contains(true))
    }
}

import CSodium
import CTokenEd25519
import CTokenEd25519.Testing
import Foundation
import TestSupport
import Testing

@testable import TokenVerifier

/// The Ed25519 wide path (`ed25519_wide.c`: the batch's point arithmetic eight signatures at a
/// time with AVX-512 IFMA) against `crypto_sign_verify_detached`: its self-test passes and fails on
/// each broken walk, every Wycheproof vector and 20,000 randomized signatures (more with
/// TOKENVERIFY_ED25519_WIDE_COMPARE=COUNT) in batches mixing keys get libsodium's verdicts, and
/// the path is on wherever the CPU has it. Skipped with the reason on a CPU without AVX-512 IFMA
/// (in CI too: the runner's CPU decides, and the table path's tests still run). The 10-million
/// comparison is `scripts/compare-ed25519-wide 10000000`.
@Suite struct Ed25519WideTests {
    /// The wide path's tests need the table path and a CPU with AVX-512F, VL and IFMA.
    static func requireWidePath() throws {
        try Ed25519PathComparison.requireTablePath()
        if tv_ed25519_wide_self_test_with_faults(0) == -1 {
            try Test.cancel("skipped: this CPU has no AVX-512 IFMA (or the OS does not save its state): no wide path")
        }
    }

    @Test func selfTestPassesOnTheVerifiersWalk() throws {
        try Self.requireWidePath()
        #expect(tv_ed25519_wide_self_test_with_faults(0) == 1)
    }

    @Test(arguments: [
        ("leaves out the top window", Int32(TV_ED25519_FAULT_WIDE_DROP_TOP_WINDOW)),
        ("gives the last lane the first lane's key", Int32(TV_ED25519_FAULT_WIDE_LANE_KEY)),
        ("does not negate 2d·x·y for a negative digit", Int32(TV_ED25519_FAULT_WIDE_SKIP_NEGATE)),
        ("flips a bit of the last lane's SHA-512", Int32(TV_ED25519_FAULT_WIDE_HASH)),
    ])
    func selfTestFailsOnABrokenWalk(_ fault: String, _ flags: Int32) throws {
        try Self.requireWidePath()
        #expect(tv_ed25519_wide_self_test_with_faults(flags) == 0, "the self-test passed a walk that \(fault)")
    }

    /// Where the CPU has the wide path and TOKENVERIFY_SIGNATURE_PATH does not turn it off, the
    /// batches take it, and the path says so.
    @Test func theWidePathIsOnWhereTheCPUHasIt() throws {
        try Self.requireWidePath()
        let forced = ProcessInfo.processInfo.environment["TOKENVERIFY_SIGNATURE_PATH"]
        if forced == "tables" || forced == "standard" {
            #expect(tv_ed25519_wide_status() == TV_ED25519_WIDE_FORCED_OFF)
            #expect(Ed25519KeyTable.path.path == .tables && Ed25519KeyTable.path.reason.contains("TOKENVERIFY"))
        } else {
            #expect(tv_ed25519_wide_status() == TV_ED25519_WIDE_ON)
            #expect(Ed25519KeyTable.path.path == .wide, "\(Ed25519KeyTable.path)")
            #expect(Ed25519KeyTable.bytesPerTable == 48 + 165_120, "the wide comb replaces the cached one")
        }
    }

    /// A key's table with its wide comb, whatever TOKENVERIFY_SIGNATURE_PATH says.
    final class WideTable {
        let publicKey: [UInt8]
        let handle: UnsafeMutableRawPointer

        init?(_ publicKey: [UInt8]) {
            guard publicKey.count == 32, let handle = tv_ed25519_wide_table_new(publicKey) else { return nil }
            self.publicKey = publicKey
            self.handle = handle
        }

        deinit { tv_ed25519_table_free(handle) }
    }

    /// The wide path's hashing (`ed25519_challenges.c`, Intel's multi-buffer library) against
    /// libsodium's `crypto_hash_sha512` of R‖A‖M: groups of 1 to 8 inputs of random lengths, from
    /// empty messages through every length of the first two SHA-512 blocks' edges to inputs on both
    /// sides of the scratch (where libsodium takes over), each digest the same 64 bytes.
    @Test func groupHashingAgreesWithLibsodium() throws {
        let scratch = Int(TV_ED25519_HASH_SCRATCH_FOR_TESTING)
        let edges = Array(0...300) + [scratch - 1, scratch, scratch + 1, scratch + 64, 20_000]
        var random = SystemRandomNumberGenerator()
        var lengths = edges + (0..<2_000).map { _ in Int.random(in: 0...1_200, using: &random) }
        lengths.shuffle(using: &random)
        var checked = 0
        while !lengths.isEmpty {
            let count = min(lengths.count, Int.random(in: 1...8, using: &random))
            let group = (0..<count).map { _ in
                (
                    r: Ed25519TableRandomizedTests.randomBytes(32, &random),
                    a: Ed25519TableRandomizedTests.randomBytes(32, &random),
                    message: Ed25519TableRandomizedTests.randomBytes(lengths.removeLast(), &random)
                )
            }
            let digests = Self.laneDigests(group)
            for (input, digest) in zip(group, digests) {
                var expected = [UInt8](repeating: 0, count: 64)
                let whole = input.r + input.a + input.message
                crypto_hash_sha512(&expected, whole, UInt64(whole.count))
                #expect(digest == expected, "\(count) lanes, message of \(input.message.count) bytes")
                checked += 1
            }
        }
        #expect(checked == edges.count + 2_000)
        print(
            "Ed25519 wide path hashing: \(checked) inputs in groups of 1 to 8 agree with libsodium"
                + " (multi-buffer architecture \(tv_ed25519_wide_hash_arch()), 0 is libsodium alone)")
    }

    /// Where the wide path is on and Intel's multi-buffer library is installed (in CI it must be:
    /// scripts/install-dependencies), the library hashes the groups, with its AVX-512 lanes.
    @Test func theMultiBufferLibraryHashesWhereTheWidePathRuns() throws {
        try Self.requireWidePath()
        try ExternalRequirement.require(
            tv_ed25519_wide_hash_library() != nil,
            "libIPSec_MB.so.1 version 1.3 (Debian's libipsec-mb1) is not installed: libsodium hashes the wide path's groups"
        )
        #expect(String(cString: tv_ed25519_wide_hash_library()).hasPrefix("1.3."))
        #expect(tv_ed25519_wide_hash_arch() == 5, "a CPU with AVX-512 IFMA has the library's AVX-512 lanes")
    }

    static func laneDigests(_ group: [(r: [UInt8], a: [UInt8], message: [UInt8])]) -> [[UInt8]] {
        let buffers = group.map { input in
            [input.r, input.a, input.message].map { bytes in
                let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
                _ = buffer.initialize(from: bytes)
                return buffer
            }
        }
        defer { for buffer in buffers.joined() { buffer.deallocate() } }
        func pointers(_ k: Int) -> [UnsafePointer<UInt8>?] { buffers.map { UnsafePointer($0[k].baseAddress) } }
        var digests = [UInt8](repeating: 0, count: 64 * group.count)
        tv_ed25519_hash_lanes_for_testing(
            &digests, pointers(0), pointers(1), pointers(2), group.map(\.message.count), Int32(group.count))
        return (0..<group.count).map { Array(digests[64 * $0..<64 * ($0 + 1)]) }
    }

    /// The wide path's verdicts on `inputs`, all in one batch (the keys mixed).
    static func wideVerdicts(_ inputs: [(table: WideTable, signature: [UInt8], message: [UInt8])]) -> [Bool] {
        let tables: [UnsafeRawPointer?] = inputs.map { UnsafeRawPointer($0.table.handle) }
        let signatures = inputs.map { _ in UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64) }
        let messages = inputs.map { UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, $0.message.count)) }
        defer { for buffer in signatures + messages { buffer.deallocate() } }
        for (i, input) in inputs.enumerated() {
            _ = signatures[i].initialize(from: input.signature)
            _ = messages[i].initialize(from: input.message)
        }
        let signaturePointers: [UnsafePointer<UInt8>?] = signatures.map { UnsafePointer($0.baseAddress) }
        let messagePointers: [UnsafePointer<UInt8>?] = messages.map { UnsafePointer($0.baseAddress) }
        var verdicts = [UInt8](repeating: 0xAA, count: inputs.count)
        tv_ed25519_wide_verify_many(
            tables, messagePointers, inputs.map(\.message.count), signaturePointers, inputs.count, &verdicts)
        return verdicts.map { $0 == 1 }
    }

    static func sodiumVerdict(_ publicKey: [UInt8], _ signature: [UInt8], _ message: [UInt8]) -> Bool {
        signature.count == 64 && crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// Every Wycheproof Ed25519 vector of 64 bytes through the wide path, as one batch of mixed
    /// keys: libsodium's verdict and Wycheproof's on each.
    @Test func everyWycheproofVector() throws {
        try Self.requireWidePath()
        var batch: [(table: WideTable, signature: [UInt8], message: [UInt8])] = []
        var expected: [Bool] = []
        var labels: [String] = []
        var vectors = 0
        for group in try SignatureBackendTests().loadVectors("ed25519_test.json") {
            let publicKey = hexBytes((group["publicKey"] as! [String: Any])["pk"] as! String)
            let table = try #require(WideTable(publicKey), "libsodium accepts every Wycheproof key")
            for test in group["tests"] as! [[String: Any]] {
                vectors += 1
                let signature = hexBytes(test["sig"] as! String)
                let message = hexBytes(test["msg"] as! String)
                let standard = Self.sodiumVerdict(publicKey, signature, message)
                #expect(standard == (test["result"] as! String == "valid"), "tcId \(test["tcId"]!)")
                guard signature.count == 64 else { continue }  // the batch takes 64-byte signatures only
                batch.append((table, signature, message))
                expected.append(standard)
                labels.append("tcId \(test["tcId"]!): \(test["comment"]!)")
            }
        }
        #expect(vectors == 151)
        let verdicts = Self.wideVerdicts(batch)
        for (label, (verdict, standard)) in zip(labels, zip(verdicts, expected)) where verdict != standard {
            Issue.record("\(label): libsodium \(standard), wide \(verdict)")
        }
        #expect(batch.count > 100 && expected.contains(true) && expected.contains(false))
        print("Ed25519 wide path: \(batch.count) Wycheproof vectors of 64-byte signatures in one batch, all agree")
    }

    /// Randomized signatures (the variants of ``Ed25519TableRandomizedTests``) over 4 keys and
    /// fresh mixed-order keys, in batches of 1 to 100 (so that the last group of eight is mostly
    /// partial): the wide path's verdict is libsodium's on every one.
    @Test func randomizedSignaturesAgree() throws {
        try Self.requireWidePath()
        typealias Variant = Ed25519TableRandomizedTests.Variant
        let environment = ProcessInfo.processInfo.environment["TOKENVERIFY_ED25519_WIDE_COMPARE"]
        let count =
            try environment.map { try #require(Int($0), "TOKENVERIFY_ED25519_WIDE_COMPARE=\($0) is not a count") }
            ?? 20_000
        var random = SystemRandomNumberGenerator()
        let keys = Ed25519TableRandomizedTests.newKeys(4)
        let tables = try keys.map { try #require(WideTable($0.publicKey)) }
        var tally = PathComparisonTally<Variant>()
        var batch: [(table: WideTable, signature: [UInt8], message: [UInt8])] = []
        var variants: [Variant] = []
        var batchSize = Int.random(in: 1...100, using: &random)
        func verifyBatch() {
            for (input, (variant, verdict)) in zip(batch, zip(variants, Self.wideVerdicts(batch))) {
                tally.record(
                    variant, standard: Self.sodiumVerdict(input.table.publicKey, input.signature, input.message),
                    table: verdict, standardName: "libsodium",
                    input: "key \(input.table.publicKey), signature \(input.signature), message \(input.message)")
            }
            batch = []
            variants = []
            batchSize = Int.random(in: 1...100, using: &random)
        }
        var index = 0
        while index < count {
            let (keyIndex, message, signature) = Ed25519TableRandomizedTests.signedMessage(keys, &random)
            for variant in Variant.allCases where index < count {
                index += 1
                if variant == .mixedOrderKey {
                    let mixed = Ed25519TableRandomizedTests.mixedOrderSignature(message: message, random: &random)
                    let table = try #require(WideTable(mixed.key), "libsodium accepts a key with a small-order part")
                    batch.append((table, mixed.signature, message))
                } else {
                    let input = Ed25519TableRandomizedTests.apply(
                        variant, signature: signature, message: message, random: &random)
                    batch.append((tables[keyIndex], input.signature, input.message))
                }
                variants.append(variant)
                if batch.count == batchSize { verifyBatch() }
            }
        }
        if !batch.isEmpty { verifyBatch() }
        tally.report("Ed25519 libsodium vs wide: \(count) signatures, batches of 1 to 100 mixing keys")
        #expect(tally.mismatches.isEmpty)
        #expect(tally.checked.values.reduce(0, +) == count)
        #expect(tally.valid[.valid] == tally.checked[.valid])
    }
}

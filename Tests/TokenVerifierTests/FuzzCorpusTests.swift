import Foundation
import TestSupport
import Testing
import TokenVerifierTesting

@testable import TokenVerifier

/// Replays the committed key-set, revocation and signature fuzz corpora (`Fuzz/corpus`, grown by `Fuzz/run`;
/// the token and request-line corpora are replayed by LineProtocolTests) through the same
/// entry points as the harnesses, so that every input the fuzzers kept, crashers included once
/// fixed, stays a regression test in the ordinary test run.
@Suite struct FuzzCorpusTests {
    @Test func keySetCorpus() throws {
        let inputs = try Repository.fuzzCorpus("FuzzKeySet")
        #expect(inputs.count >= 10, "the key-set corpus is missing or nearly empty")
        for input in inputs {
            do throws(KeySetError) {
                let (keys, _) = try KeySet.parse(input, file: "corpus.jwks")
                for key in keys.keys { #expect(keys[key.keyID] != nil) }
            } catch {
                #expect(error.file == "corpus.jwks")
            }
        }
    }

    @Test func revocationCorpus() throws {
        let inputs = try Repository.fuzzCorpus("FuzzRevocations")
        #expect(inputs.count >= 10, "the revocation corpus is missing or nearly empty")
        for input in inputs {
            do throws(RevocationListError) {
                _ = try RevocationList.parse(input, file: "corpus.jsonl")
            } catch {
                #expect(error.description.hasPrefix("corpus.jsonl"))
            }
        }
    }
}

extension FuzzCorpusTests {
    /// The signature corpus through both ES256 paths (EVP and the per-key table), as the
    /// FuzzSignature harness does: equal verdicts on every input.
    @Test func signatureCorpus() throws {
        try replayBothPaths("FuzzSignature", standard: "EVP") { ES256PathCheck.verdicts($0) }
    }

    /// The Ed25519 signature corpus through both paths (`crypto_sign_verify_detached` and the
    /// per-key table) and the wide path, as the FuzzEd25519Signature harness does: equal verdicts
    /// on every input.
    @Test func ed25519SignatureCorpus() throws {
        try Ed25519PathComparison.requireTablePath()
        try replayBothPaths("FuzzEd25519Signature", standard: "libsodium") { Ed25519PathCheck.verdicts($0) }
        // The wide path in a batch of mixed keys, where the CPU has it (true elsewhere).
        for input in try Repository.fuzzCorpus("FuzzEd25519Signature") {
            #expect(input.withUnsafeBufferPointer(Ed25519PathCheck.wideAgrees), "wide path on \(input)")
        }
    }

    /// Replays a signature corpus through `verdicts` (the standard call's, the table's alone and
    /// twice in one batch, and whether the signature was made here): equal on every input (the
    /// batch's where the signature is 64 bytes), and some valid ones reached.
    private func replayBothPaths(
        _ corpus: String, standard: String,
        _ verdicts: (UnsafeBufferPointer<UInt8>) -> SignaturePathVerdicts
    ) throws {
        let inputs = try Repository.fuzzCorpus(corpus)
        #expect(inputs.count >= 10, "the \(corpus) corpus is missing or nearly empty")
        var signedAndValid = 0
        var batched = 0
        for input in inputs {
            let said = input.withUnsafeBufferPointer(verdicts)
            #expect(said.standard == said.table, "\(standard) \(said.standard), table \(said.table) on \(input)")
            #expect(
                said.batchAgrees,
                "\(standard) \(said.standard), batched \(String(describing: said.batched)) on \(input)")
            if said.wholeSignature { batched += 1 }
            if said.signedHere, said.table { signedAndValid += 1 }
        }
        #expect(signedAndValid >= 3, "the \(corpus) corpus reaches valid signatures")
        #expect(batched >= 10, "the \(corpus) corpus has 64-byte signatures for the batch")
    }
}

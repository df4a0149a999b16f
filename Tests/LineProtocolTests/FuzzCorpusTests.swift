import Foundation
import TestSupport
import Testing
import TokenFormats
import TokenVerifier

@testable import LineProtocol

/// Replays the committed token and request-line fuzz corpora (`Fuzz/corpus`, grown by
/// `Fuzz/run`) through the line protocol: each input as one line, and each input cut at its
/// newlines into a batch (the path of `verify`'s workers), so that every input the fuzzers
/// kept stays a regression test.
@Suite struct FuzzCorpusTests {
    static func verifier(audit: Bool) -> Verifier {
        let demo = Repository.demo
        let keys = try! KeySet.load(files: [demo.appendingPathComponent("keys.jwks").path]).0
        let revocations = try! RevocationList.load(files: [demo.appendingPathComponent("revocations.jsonl").path])
        return Verifier(
            keys: keys, revocations: revocations, options: VerificationOptions(checkTime: 1_800_000_000, audit: audit))
    }

    let answerers = [false, true].map {
        LineAnswerer(verifier: FuzzCorpusTests.verifier(audit: $0), maxLineBytes: 4096)
    }

    /// The input cut into protocol lines: number and bytes (nil when over the limit), blank ones skipped.
    static func lines(of input: [UInt8], maxLineBytes: Int) -> [InputLine] {
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        var lines: [InputLine] = []
        func collect(_ number: Int, _ line: UnsafeBufferPointer<UInt8>?) {
            guard let line else { return lines.append(InputLine(number: number, bytes: nil)) }
            if !trimmingBlanks(line).isEmpty { lines.append(InputLine(number: number, bytes: Array(line))) }
        }
        input.withUnsafeBufferPointer { splitter.feed($0, collect) }
        splitter.feed(nil, collect)
        return lines
    }

    /// Every line gets one answer, in order: a strict JSON object on one line, numbered, with the verdict returned.
    private func expectOneAnswerEach(_ input: [UInt8]) {
        let lines = Self.lines(of: input, maxLineBytes: 4096)
        for answerer in answerers {
            var output: [UInt8] = []
            let reasons = answerer.answer(lines, to: &output)
            #expect(reasons.count == lines.count)
            let answers = output.split(separator: 0x0A, omittingEmptySubsequences: false)
            #expect(answers.count == lines.count + 1 && answers.last?.isEmpty == true, "one answer line per line")
            for (index, answer) in answers.dropLast().enumerated() where index < lines.count {
                // Strict JSON (checked by our reader: an echoed id may be a number no Double holds).
                #expect(JSONValidation.problem(in: Array(answer)) == nil)
                let text = String(decoding: answer, as: UTF8.self)
                #expect(text.hasPrefix("{\"line\":\(lines[index].number),"))
                if let reason = reasons[index] {
                    #expect(text.contains("\"valid\":false,\"reason\":\"\(reason.rawValue)\""))
                } else {
                    #expect(text.contains("\"valid\":true,"))
                }
            }
        }
    }

    @Test func tokenCorpus() throws {
        let inputs = try Repository.fuzzCorpus("FuzzToken")
        #expect(inputs.count >= 100, "the token corpus is missing or nearly empty")
        for input in inputs { expectOneAnswerEach(input) }
    }

    /// The CWT corpus holds CBOR: each input is answered as the base64url line the harness makes.
    @Test func cwtCorpus() throws {
        let inputs = try Repository.fuzzCorpus("FuzzCWT")
        #expect(inputs.count >= 20, "the CWT corpus is missing or nearly empty")
        for input in inputs { expectOneAnswerEach(Array(Base64URL.encodeString(input).utf8)) }
    }

    @Test func requestLineCorpus() throws {
        let inputs = try Repository.fuzzCorpus("FuzzRequestLine")
        #expect(inputs.count >= 100, "the request-line corpus is missing or nearly empty")
        #expect(inputs.contains { $0.contains(0x0A) }, "the corpus holds inputs of several lines")
        for input in inputs { expectOneAnswerEach(input) }
    }
}

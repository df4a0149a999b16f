import TestSupport
import Testing
import TokenVerifier

@testable import LineProtocol

/// Request lines (spec §6): what is refused as `malformed_request`, what an answer echoes, and
/// escapes read through the batch path.
@Suite struct RequestLineTests {
    let fixtures = Fixtures()

    func answer(_ lines: [String], verifier: Verifier? = nil) -> (text: String, reasons: [Reason?]) {
        var output: [UInt8] = []
        let answerer = LineAnswerer(verifier: verifier ?? fixtures.verifier(), maxLineBytes: 65536)
        let reasons = answerer.answer(
            lines.enumerated().map { InputLine(number: $0.offset + 1, bytes: Array($0.element.utf8)) }, to: &output)
        return (String(decoding: output, as: UTF8.self), reasons)
    }

    /// A request's `at` outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z is refused naming the
    /// bound (spec §6); one inside it, however odd (a subnormal, −0), is the check time.
    @Test func checkTimesOutsideTheRangeAreMalformed() {
        let outside = [
            "1e19", "-1e19", "1.7976931348623157e308", "253402300800", "-62135596801", "\"0000-12-31T23:59:59Z\"",
        ]
        for at in outside {
            guard case .failure(let malformed) = RequestLine.parse(Array("{\"token\":\"x\",\"at\":\(at)}".utf8)) else {
                Issue.record("accepted at \(at)")
                continue
            }
            #expect(malformed.detail.contains("0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z"), "\(malformed.detail)")
        }
        for (at, time) in [("1e-320", 1e-320), ("-0.0", 0), ("253402300799.5", 253_402_300_799.5)] {
            guard case .success(let request) = RequestLine.parse(Array("{\"token\":\"x\",\"at\":\(at)}".utf8)) else {
                Issue.record("refused at \(at)")
                continue
            }
            #expect(request.context.checkTime == time)
        }
    }

    @Test func malformedRequests() {
        let lines = [
            #"["a.b.c"]"#, #""a.b.c""#, #"{"token":null}"#, #"{"token":"a.b.c","device":null}"#,
            #"{"token":"a.b.c","devise":"x"}"#, #"{"token":5}"#, #"{"device":"x"}"#, #"{"token":"a.b.c""#,
            #"{"token":"a","token":"b"}"#, #"{"token":"x","at":"yesterday"}"#,
        ]
        for line in lines {
            guard case .failure = RequestLine.parse(Array(line.utf8)) else {
                Issue.record("accepted \(line)")
                continue
            }
            let (text, reasons) = answer([line])
            #expect(reasons == [.malformedRequest])
            #expect(text.hasPrefix(#"{"line":1,"valid":false,"reason":"malformed_request","detail":"#), "\(text)")
        }
        let withID = RequestLine.parse(
            Array("{\"id\":[1,\t{ \"x\" :\r2, \"s\":\"a \\\" b\"}],\"token\":\"t\",\"colour\":\"red\"}".utf8))
        guard case .failure(let malformed) = withID else {
            Issue.record("accepted")
            return
        }
        #expect(malformed.id == Array(#"[1,{"x":2,"s":"a \" b"}]"#.utf8))
    }

    @Test func anOversizedLineIsAnsweredWithoutItsBytes() {
        var output: [UInt8] = []
        let answerer = LineAnswerer(verifier: fixtures.verifier(), maxLineBytes: 100)
        let reasons = answerer.answer([InputLine(number: 7, bytes: nil)], to: &output)
        #expect(reasons == [.malformedRequest])
        #expect(
            String(decoding: output, as: UTF8.self)
                == #"{"line":7,"valid":false,"reason":"malformed_request","detail":"the line is longer than the limit of 100 bytes"}"#
                + "\n")
    }

    @Test func requestLinesWithEscapesAreUnescapedInTheBatchPath() throws {
        let token = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["aud": #"["car-1","car-2"]"#]))
        let escapedToken = token.replacingOccurrences(of: ".", with: #"\u002e"#)
        let (text, reasons) = answer([
            #"{"id":1,"token":"\#(escapedToken)","device":"ph\u006fne-1","object":"car-\u0032","channel":"n\u0066c","command":"\u006cock"}"#,
            "  " + #"{"id":2,"token":"\#(token)","device":"ph\u006fne-2"}"# + "\t",
            #"{"id":3,"command":"l\u006fck","token":"\#(escapedToken)","object":"car-\u0033"}"#,
        ])
        #expect(reasons == [nil, .wrongDevice, .wrongObject])
        #expect(text.contains(#"not \"phone-2\""#) && text.contains(#"object \"car-3\""#), "\(text)")
    }

    @Test func validAnswersCarryTheClaimsAsWritten() {
        let claims = Fixtures.claims([
            "jti": #""t\"1""#, "aud": #"["car-1","c\"2"]"#, "exp": "1800003600.5", "role": nil,
        ])
        let (text, reasons) = answer([
            #"{"id": {"a" : [1, 2]}, "token":"\#(Fixtures.token(fixtures.es, claims: claims))"}"#
        ])
        #expect(reasons == [nil])
        #expect(
            text
                == #"{"line":1,"id":{"a":[1,2]},"valid":true,"jti":"t\"1","sub":"phone-1","aud":["car-1","c\"2"],"kid":"es-1","alg":"ES256","exp":1800003600.5}"#
                + "\n")
    }

    @Test func theLibraryAnswerLineIsTheStreamsAnswer() {
        // `VerificationResult.answerLine` and the batch path share one writer; a result made by the
        // library API carries what the writer needs.
        for audit in [false, true] {
            let verifier = fixtures.verifier(options: VerificationOptions(checkTime: Fixtures.now, audit: audit))
            for (index, token) in [
                Fixtures.token(fixtures.ed), Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1"])),
                Fixtures.token(fixtures.edDSA, claims: Fixtures.claims(["sub": #""ph\u00f6ne\n1""#])),
            ].enumerated() {
                let result = verifier.verify(VerificationRequest(token: token))
                let (text, _) = answer([token], verifier: verifier)
                #expect(
                    String(decoding: result.answerLine(number: 1, audit: audit), as: UTF8.self) == text,
                    "token \(index)")
            }
        }
    }
}

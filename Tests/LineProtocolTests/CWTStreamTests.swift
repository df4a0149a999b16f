import Foundation
import LineProtocol
import TestSupport
import Testing
import TokenVerifier

/// CWT lines (spec §2b) through the line protocol: mixed with JWS lines in one stream, answered
/// in order, with `"format":"cwt"`; every reason code of §5 reachable from a CWT line.
@Suite struct CWTStreamTests {
    let fixtures = Fixtures()

    func answers(
        _ lines: [String], revocations: RevocationList = .empty, steps: SecuritySteps? = nil,
        statusLists: StatusListSet? = nil
    ) throws -> [[String: Any]] {
        let verifier = Verifier(
            keys: fixtures.keySet, revocations: revocations, steps: steps ?? .none, statusLists: statusLists,
            trustAnchors: Fixtures.unrelatedAnchors(), options: VerificationOptions(checkTime: Fixtures.now))
        var output: [UInt8] = []
        _ = LineAnswerer(verifier: verifier, maxLineBytes: 65536)
            .answer(
                lines.enumerated().map { InputLine(number: $0.offset + 1, bytes: Array($0.element.utf8)) }, to: &output)
        return try output.split(separator: UInt8(ascii: "\n")).map {
            try #require(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
    }

    @Test func aMixedStreamIsAnsweredInOrder() throws {
        let expired = Fixtures.claims(["exp": "1700000000"])
        let lines = [
            Fixtures.token(fixtures.ed), Fixtures.cwt(fixtures.ed), Fixtures.cwt(fixtures.es, claims: expired),
            #"{"id":7,"token":"\#(Fixtures.cwt(fixtures.es))","device":"phone-1","command":"unlock"}"#,
            Fixtures.token(fixtures.es, claims: expired), "notbase64!", Fixtures.cwt(fixtures.edDSA),
            #"{"token":"\#(Fixtures.cwt(fixtures.ed))","channel":"uwb"}"#, Fixtures.token(fixtures.edDSA),
        ]
        let got = try answers(lines)
        #expect(got.map { $0["line"] as? Int } == Array(1...9))
        #expect(got.map { $0["valid"] as? Bool } == [true, true, false, true, false, false, true, false, true])
        #expect(
            got.map { $0["reason"] as? String } == [
                nil, nil, "expired", nil, "expired", "malformed_token", nil, "channel_not_permitted", nil,
            ])
        #expect(got.map { $0["format"] as? String } == [nil, "cwt", "cwt", "cwt", nil, nil, "cwt", "cwt", nil])
        #expect(
            got.map { $0["alg"] as? String } == ["Ed25519", "Ed25519", nil, "ES256", nil, nil, "EdDSA", nil, "EdDSA"])
        #expect(got[3]["id"] as? Int == 7)
        #expect(
            got[1]["jti"] as? String == "t-1" && got[1]["kid"] as? String == "ed-1"
                && got[1]["role"] as? String == "owner")
    }

    /// A CWT line that must be answered with `reason`, and what the verifier needs for it.
    func line(producing reason: Reason) -> (line: String, revocation: String?) {
        let good = Fixtures.cwt(fixtures.ed)
        func request(_ context: String) -> String { #"{"token":"\#(good)"\#(context)}"# }
        let kid = CBOR.bytes(Array("ed-1".utf8))
        switch reason {
        case .malformedRequest: return (#"{"token":"\#(good)","colour":"red"}"#, nil)
        case .malformedToken: return (Base64URL.encodeString(Fixtures.cborBytes(ofCWT: good) + [0]), nil)
        case .unsupportedAlgorithm:
            return (Fixtures.cwt(fixtures.ed, protected: CBOR.protected(alg: 5, kid: "ed-1")), nil)
        case .badHeader:
            return (
                Fixtures.cwt(
                    fixtures.ed,
                    protected: CBOR.map([
                        (CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid), (CBOR.int(2), CBOR.array([])),
                    ])), nil
            )
        case .unknownKey: return (Fixtures.cwt(fixtures.ed, protected: CBOR.protected(alg: -19, kid: "nobody")), nil)
        case .untrustedChain:
            let chain = CBOR.map([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(33), CBOR.bytes(Array("ABC".utf8)))])
            return (Fixtures.cwt(fixtures.ed, protected: chain), nil)
        case .keyAlgorithmMismatch:
            return (Fixtures.cwt(fixtures.ed, protected: CBOR.protected(alg: -7, kid: "ed-1")), nil)
        case .wrongEnvironment:
            return (Fixtures.cwt(fixtures.prodKey, claims: Fixtures.claims(["env": #""int""#])), nil)
        case .wrongIssuer:
            return (Fixtures.cwt(fixtures.prodKey, claims: Fixtures.claims(["iss": #""operator-b""#])), nil)
        case .notYetValid: return (Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(["nbf": "1900000000"])), nil)
        case .expired: return (Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(["exp": "1700000000"])), nil)
        case .revokedKey: return (good, #"{"kid":"ed-1"}"#)
        case .revokedToken: return (good, #"{"jti":"t-1"}"#)
        case .revokedDevice: return (good, #"{"sub":"phone-1"}"#)
        case .revokedObject: return (good, #"{"aud":"car-1"}"#)
        case .revokedGrant: return (good, #"{"sub":"phone-1","aud":"car-1"}"#)
        case .wrongDevice: return (request(#","device":"phone-2""#), nil)
        case .wrongObject: return (request(#","object":"car-2""#), nil)
        case .channelNotPermitted: return (request(#","channel":"uwb""#), nil)
        case .commandNotPermitted: return (request(#","command":"horn""#), nil)
        case .stepRequired: return (request(#","command":"unlock""#), nil)
        case .statusInvalid: return (Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(statusIndex: 1)), nil)
        case .statusSuspended: return (Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(statusIndex: 2)), nil)
        case .statusUnavailable: return (Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(statusIndex: 64)), nil)
        case .badSignature:
            return (
                Fixtures.cwt(
                    fixtures.ed, presentedPayload: Fixtures.cwtClaims(Fixtures.claims(["cmd": #"["engine_start"]"#]))),
                nil
            )
        }
    }

    @Test(arguments: Reason.allCases)
    func everyReasonCodeIsProducedByACWT(_ reason: Reason) throws {
        let (line, revocation) = line(producing: reason)
        let revocations = try revocation.map { try RevocationList.parse(Array($0.utf8)) } ?? .empty
        let steps = SecuritySteps(
            policy: try StepPolicy.parse(Array(#"{"unlock":["trustedPhone","deviceActivation"]}"#.utf8)),
            done: try DeviceSteps.parse(Array(#"{"sub":"phone-1","aud":"car-1","done":["trustedPhone"]}"#.utf8)))
        // A CWT status list in which entry 1 is INVALID and entry 2 SUSPENDED (64 entries).
        let lists = StatusListSet(lists: [try fixtures.statusList(Fixtures.statusListToken(fixtures.es, format: .cwt))])
        let answer = try #require(try answers([line], revocations: revocations, steps: steps, statusLists: lists).first)
        #expect(answer["reason"] as? String == reason.rawValue, "\(answer)")
        // The format is reported once the token could be read as a CWT.
        let parsed = reason != .malformedRequest && reason != .malformedToken
        #expect((answer["format"] as? String == "cwt") == parsed, "\(answer)")
    }
}

import LineProtocol
import TestSupport
import Testing
import TokenVerifier

/// Every reason code of spec §5 is produced by some input line: the list of reasons comes from
/// ``Reason/allCases``, so a new code without an input that produces it fails here.
@Suite struct ReasonCoverageTests {
    let fixtures = Fixtures()

    /// An input line that must be answered with `reason`, and what the verifier needs for it.
    func input(producing reason: Reason) -> (line: String, revocation: String?)? {
        if reason == .stepRequired { return (#"{"token":"\#(Fixtures.token(fixtures.ed))","command":"unlock"}"#, nil) }
        let good = Fixtures.token(fixtures.ed)
        let payload = good.split(separator: ".")[1]
        func request(_ token: String, _ context: String = "") -> String { #"{"token":"\#(token)"\#(context)}"# }
        switch reason {
        case .malformedRequest: return (#"{"token":"x","colour":"red"}"#, nil)
        case .malformedToken: return (replacingSegment(good, 1, with: payload + "="), nil)
        case .unsupportedAlgorithm: return (Fixtures.token(fixtures.ed, header: #"{"alg":"HS256","kid":"ed-1"}"#), nil)
        case .badHeader:
            return (Fixtures.token(fixtures.ed, header: #"{"alg":"Ed25519","kid":"ed-1","crit":["x"]}"#), nil)
        case .unknownKey: return (Fixtures.token(fixtures.ed, header: #"{"alg":"Ed25519","kid":"nobody"}"#), nil)
        case .untrustedChain:
            return (Fixtures.token(fixtures.ed, header: #"{"alg":"Ed25519","x5c":["QUJD"]}"#), nil)
        case .keyAlgorithmMismatch: return (Fixtures.token(fixtures.ed, header: #"{"alg":"ES256","kid":"ed-1"}"#), nil)
        case .wrongEnvironment:
            return (Fixtures.token(fixtures.prodKey, claims: Fixtures.claims(["env": #""int""#])), nil)
        case .wrongIssuer:
            return (Fixtures.token(fixtures.prodKey, claims: Fixtures.claims(["iss": #""operator-b""#])), nil)
        case .notYetValid: return (Fixtures.token(fixtures.ed, claims: Fixtures.claims(["nbf": "1900000000"])), nil)
        case .expired: return (Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1700000000"])), nil)
        case .revokedKey: return (good, #"{"kid":"ed-1"}"#)
        case .revokedToken: return (good, #"{"jti":"t-1"}"#)
        case .revokedDevice: return (good, #"{"sub":"phone-1"}"#)
        case .revokedObject: return (good, #"{"aud":"car-1"}"#)
        case .revokedGrant: return (good, #"{"sub":"phone-1","aud":"car-1"}"#)
        case .wrongDevice: return (request(good, #","device":"phone-2""#), nil)
        case .wrongObject: return (request(good, #","object":"car-2""#), nil)
        case .channelNotPermitted: return (request(good, #","channel":"uwb""#), nil)
        case .commandNotPermitted: return (request(good, #","command":"horn""#), nil)
        case .statusInvalid: return (Fixtures.token(fixtures.ed, claims: Fixtures.claims(statusIndex: 1)), nil)
        case .statusSuspended: return (Fixtures.token(fixtures.ed, claims: Fixtures.claims(statusIndex: 2)), nil)
        case .statusUnavailable: return (Fixtures.token(fixtures.ed, claims: Fixtures.claims(statusIndex: 999)), nil)
        case .stepRequired: return nil  // above
        case .badSignature:
            return (replacingSegment(good, 1, with: b64(Fixtures.claims(["cmd": #"["engine_start"]"#]))), nil)
        }
    }

    @Test(arguments: Reason.allCases)
    func everyReasonCodeIsProduced(_ reason: Reason) throws {
        let (line, revocation) = try #require(input(producing: reason), "no input line produces \(reason.rawValue)")
        let revocations = try revocation.map { try RevocationList.parse(Array($0.utf8)) } ?? .empty
        // A policy under which phone-1 has done the first of two steps for car-1.
        let steps = SecuritySteps(
            policy: try StepPolicy.parse(Array(#"{"unlock":["trustedPhone","deviceActivation"]}"#.utf8)),
            done: try DeviceSteps.parse(Array(#"{"sub":"phone-1","aud":"car-1","done":["trustedPhone"]}"#.utf8)))
        // A status list in which entry 1 is INVALID and entry 2 SUSPENDED (64 entries).
        let lists = StatusListSet(lists: [try fixtures.statusList(Fixtures.statusListToken(fixtures.ed))])
        let verifier = Verifier(
            keys: fixtures.keySet, revocations: revocations, steps: steps, statusLists: lists,
            trustAnchors: Fixtures.unrelatedAnchors(), options: VerificationOptions(checkTime: Fixtures.now))
        var output: [UInt8] = []
        let answerer = LineAnswerer(verifier: verifier, maxLineBytes: 65536)
        let reasons = answerer.answer([InputLine(number: 1, bytes: Array(line.utf8))], to: &output)
        #expect(reasons == [reason], "\(String(decoding: output, as: UTF8.self))")
        #expect(String(decoding: output, as: UTF8.self).contains("\"reason\":\"\(reason.rawValue)\""))
    }
}

import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// Check 10's status lists (spec §4c): the status claim, the generation in force at each check
/// time, the values, and the lists' life with the key set.
@Suite struct StatusListCheckTests {
    let fixtures = Fixtures()
    let uri = Fixtures.statusListURI

    func verifier(
        _ lists: [String]?, options: VerificationOptions = VerificationOptions(checkTime: Fixtures.now)
    ) throws -> Verifier {
        let set = try lists.map { StatusListSet(lists: try $0.map { try fixtures.statusList($0) }) }
        return Verifier(keys: fixtures.keySet, statusLists: set, options: options)
    }

    func result(
        _ verifier: Verifier, index: Int, at time: Double = Fixtures.now, format: TokenFormat = .jws
    ) -> VerificationResult {
        let claims = Fixtures.claims(statusIndex: index)
        let token =
            format == .jws ? Fixtures.token(fixtures.ed, claims: claims) : Fixtures.cwt(fixtures.ed, claims: claims)
        return verifier.verify(VerificationRequest(token: token, checkTime: time))
    }

    @Test(arguments: [TokenFormat.jws, .cwt])
    func valuesOfEveryWidth(_ format: TokenFormat) throws {
        for bits in [1, 2, 4, 8] {
            let statuses: [Int: UInt8] =
                bits == 1 ? [1: 1] : bits == 2 ? [1: 1, 2: 2, 3: 3] : [1: 1, 2: 2, 3: 3, 5: 5, 12: 12, 15: 15]
            let list = Fixtures.statusListToken(fixtures.es, bits: bits, size: 40, statuses: statuses, format: format)
            let verifier = try verifier([list])
            #expect(result(verifier, index: 0, format: format).isValid, "bits \(bits)")
            for (index, value) in statuses {
                let got = result(verifier, index: index, format: format)
                #expect(got.reason == (value == 2 ? .statusSuspended : .statusInvalid), "bits \(bits) index \(index)")
                #expect(
                    got.detail?.contains(
                        "token index \(index) of status list \"\(uri)\" (issued 2027-01-15T07:00:00Z) is 0x0\(String(value, radix: 16, uppercase: true))"
                    ) == true, "\(got.detail ?? "")")
            }
            let beyond = result(verifier, index: 40 / (8 / bits) * (8 / bits) + 8, format: format)
            #expect(beyond.reason == .statusUnavailable)
            #expect(beyond.detail?.contains("beyond status list") == true)
        }
        let names = [
            1: "0x01 INVALID", 2: "0x02 SUSPENDED", 3: "0x03 (application-specific)", 5: "0x05 (reserved)",
            12: "0x0C (application-specific)",
        ]
        for (value, name) in names { #expect(StatusValue.describe(UInt8(value)) == name) }
    }

    /// Each line uses the generation in force at its own check time: the greatest iat with
    /// iat − leeway ≤ t; an expired one is not replaced by an older one.
    @Test func generationsInTime() throws {
        let first = Fixtures.statusListToken(fixtures.ed, statuses: [:], issuedAt: 1_000, expiresAt: 5_000)
        let second = Fixtures.statusListToken(fixtures.ed, statuses: [7: 1], issuedAt: 2_000, expiresAt: 3_000)
        let verifier = try verifier([second, first])
        #expect(result(verifier, index: 7, at: 999).reason == .statusUnavailable)
        #expect(result(verifier, index: 7, at: 999).detail?.contains("no generation of status list") == true)
        #expect(result(verifier, index: 7, at: 1_000).isValid)
        #expect(result(verifier, index: 7, at: 1_999.5).isValid, "an audit at t sees the list a verifier had then")
        #expect(result(verifier, index: 7, at: 2_000).reason == .statusInvalid)
        #expect(result(verifier, index: 7, at: 2_999).reason == .statusInvalid)
        let expired = result(verifier, index: 7, at: 3_000)
        #expect(expired.reason == .statusUnavailable, "exp ≤ t, and the older list does not stand in")
        #expect(expired.detail?.contains("expired at") == true)
        let lenient = try self.verifier([second, first], options: VerificationOptions(leeway: 10))
        #expect(result(lenient, index: 7, at: 1_990).reason == .statusInvalid, "iat − leeway ≤ t")
        #expect(result(lenient, index: 7, at: 989).reason == .statusUnavailable)
    }

    @Test func withoutListsATokenThatNamesOneIsUnavailableUnlessSkipped() throws {
        let none = try verifier(nil)
        #expect(result(none, index: 1).reason == .statusUnavailable)
        #expect(result(none, index: 1).detail?.contains("no status lists are loaded") == true)
        #expect(result(none, index: 1, format: .cwt).reason == .statusUnavailable)
        let skipping = try verifier(nil, options: VerificationOptions(checkTime: Fixtures.now, skipStatusLists: true))
        #expect(result(skipping, index: 1).isValid)
        #expect(result(skipping, index: 1, format: .cwt).isValid)
        // A token without a status claim is not checked against any list.
        let empty = try verifier([])
        #expect(empty.verify(VerificationRequest(token: Fixtures.token(fixtures.ed), checkTime: Fixtures.now)).isValid)
        #expect(result(empty, index: 1).detail?.contains("none is loaded for that URI") == true)
    }

    /// A list is in force only while the key that signed it is in the key set; a rotation
    /// verifies the loaded lists again (a changed key's material must verify them).
    @Test func listsLiveWithTheirKeys() throws {
        let list = Fixtures.statusListToken(fixtures.es, statuses: [1: 1])
        let verifier = try verifier([list])
        #expect(result(verifier, index: 1).reason == .statusInvalid)
        let others = try KeySet(keys: [fixtures.ed].map { try Fixtures.publicKey($0) })
        verifier.replaceKeys(others)
        #expect(result(verifier, index: 1).reason == .statusUnavailable)
        #expect(result(verifier, index: 1).detail?.contains("out of force") == true)
        #expect(verifier.statusListNotices.contains { $0.hasPrefix("status list \"\(uri)\" is out of force") })
        let impostor = SigningKey.generate(algorithm: .es256, keyID: "es-1")
        verifier.replaceKeys(try KeySet(keys: [fixtures.ed, impostor].map { try Fixtures.publicKey($0) }))
        #expect(
            result(verifier, index: 1).reason == .statusUnavailable,
            "same kid, other material: the list does not verify")
        verifier.replaceKeys(fixtures.keySet)
        #expect(result(verifier, index: 1).reason == .statusInvalid, "back in force, not inflated again")
        #expect(verifier.statusListNotices.isEmpty)
    }

    @Test func auditListsTheStatusBesideOtherFailures() throws {
        let list = Fixtures.statusListToken(fixtures.ed, statuses: [1: 1])
        let verifier = try verifier([list], options: VerificationOptions(checkTime: Fixtures.now, audit: true))
        let token = Fixtures.token(fixtures.ed, claims: Fixtures.claims(statusIndex: 1, ["exp": "1700000000"]))
        let got = verifier.verify(VerificationRequest(token: token, command: "horn"))
        #expect(got.failures.map(\.reason) == [.expired, .statusInvalid, .commandNotPermitted])
    }

    /// A `status` claim that breaks §4c's rules makes the token malformed; other members and
    /// mechanisms inside `status` are ignored.
    @Test(arguments: [TokenFormat.jws, .cwt])
    func statusClaimShapes(_ format: TokenFormat) throws {
        let verifier = try verifier([Fixtures.statusListToken(fixtures.ed, statuses: [1: 1])])
        func reason(_ status: String) -> Reason? {
            let claims = Fixtures.claims(["status": status])
            let token =
                format == .jws ? Fixtures.token(fixtures.ed, claims: claims) : Fixtures.cwt(fixtures.ed, claims: claims)
            return verifier.verify(VerificationRequest(token: token)).reason
        }
        let malformed = [
            #""revoked""#, #"[1]"#, #"{"status_list":"x"}"#, #"{"status_list":{"idx":1}}"#,
            #"{"status_list":{"uri":"\#(uri)"}}"#,
            #"{"status_list":{"idx":-1,"uri":"\#(uri)"}}"#, #"{"status_list":{"idx":1.5,"uri":"\#(uri)"}}"#,
            #"{"status_list":{"idx":"1","uri":"\#(uri)"}}"#, #"{"status_list":{"idx":1,"uri":7}}"#,
        ]
        for status in malformed { #expect(reason(status) == .malformedToken, "\(status)") }
        #expect(
            reason(#"{"status_list":{"idx":1,"uri":"\#(uri)","x":[true]},"other_mechanism":{"a":1}}"#) == .statusInvalid
        )
        #expect(reason(#"{"other_mechanism":{"a":1}}"#) == nil, "no status_list: not checked against any list")
        if format == .jws {
            #expect(reason(#"{"status_list":{"idx":1e0,"uri":"\#(uri)"}}"#) == .malformedToken)
            #expect(reason(#"{"status_list":{"idx":18446744073709551616,"uri":"\#(uri)"}}"#) == .malformedToken)
            #expect(reason(#"{"status_list":{"idx":18446744073709551615,"uri":"\#(uri)"}}"#) == .statusUnavailable)
            #expect(
                reason(#"{"status_list":{"idx":1,"idx":2,"uri":"\#(uri)"}}"#) == .malformedToken, "duplicate member")
        }
    }

    /// The CWT status claim is 65535 with text keys inside (a list named by integer keys is not read).
    @Test func cwtStatusClaimKeys() throws {
        let verifier = try verifier([Fixtures.statusListToken(fixtures.ed, statuses: [1: 1])])
        let base: [([UInt8], [UInt8])] = [
            (CBOR.int(1), CBOR.text("operator-a")), (CBOR.int(2), CBOR.text("phone-1")),
            (CBOR.int(3), CBOR.text("car-1")),
            (CBOR.int(7), CBOR.text("t-1")), (CBOR.int(4), CBOR.int(1_800_003_600)),
            (CBOR.text("ch"), CBOR.array([CBOR.text("ble")])), (CBOR.text("cmd"), CBOR.array([CBOR.text("unlock")])),
        ]
        func reason(_ status: [UInt8], key: [UInt8] = CBOR.int(65535)) -> Reason? {
            verifier.verify(
                VerificationRequest(token: Fixtures.cwt(fixtures.ed, payload: CBOR.map(base + [(key, status)])))
            ).reason
        }
        let list = CBOR.map([(CBOR.text("idx"), CBOR.int(1)), (CBOR.text("uri"), CBOR.text(uri))])
        #expect(reason(CBOR.map([(CBOR.text("status_list"), list)])) == .statusInvalid)
        #expect(
            reason(CBOR.map([(CBOR.text("status_list"), list)]), key: [0x1A, 0, 0, 0xFF, 0xFF]) == .statusInvalid,
            "a wide head")
        #expect(
            reason(CBOR.map([(CBOR.text("status_list"), list)]), key: CBOR.text("status")) == nil,
            "a text key is another claim")
        #expect(
            reason(
                CBOR.map([
                    (
                        CBOR.text("status_list"),
                        CBOR.map([(CBOR.text("idx"), CBOR.int(-1)), (CBOR.text("uri"), CBOR.text(uri))])
                    )
                ])) == .malformedToken)
        #expect(
            reason(
                CBOR.map([
                    (
                        CBOR.text("status_list"),
                        CBOR.map([(CBOR.text("idx"), CBOR.int(1)), (CBOR.text("uri"), CBOR.bytes([1]))])
                    )
                ])) == .malformedToken)
        #expect(reason(CBOR.map([(CBOR.int(1), list)])) == nil, "an integer key inside status is another mechanism")
        #expect(reason(CBOR.int(1)) == .malformedToken)
    }
}

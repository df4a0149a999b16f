import TestSupport
import Testing

@testable import TokenVerifier

@Suite struct RevocationListTests {
    func list(_ text: String) throws -> RevocationList { try RevocationList.parse(Array(text.utf8)) }

    @Test func aLargeListKeepsAtMostSixtyFourBytesPerEntry() throws {
        let lines = (0..<100_000).map { index in
            index % 2 == 0
                ? "{\"jti\":\"a-rather-long-token-identifier-\(index)\"}"
                : "{\"sub\":\"phone-\(index)\",\"aud\":\"car-\(index)\"}"
        }
        let list = try RevocationList.parse(Array(lines.joined(separator: "\n").utf8))
        #expect(list.count == 100_000)
        #expect(list.storageBytes <= 64 * list.count, "\(list.storageBytes / list.count) bytes per entry")
        #expect(list.revokes(.token, "a-rather-long-token-identifier-99998", issuedAt: nil, at: 0))
    }

    @Test func selectorsMatchOnlyTheirKind() throws {
        let revocations = try list(
            """
            {"jti":"x"}
            {"sub":"phone"}

            \t{"aud":"car"}\r
            {"sub":"phone-2","aud":"car-2"}
            {"kid":"k"}
            """)
        #expect(revocations.count == 5)
        #expect(revocations.revokes(.token, "x", issuedAt: nil, at: 0))
        #expect(!revocations.revokes(.device, "x", issuedAt: nil, at: 0))
        #expect(revocations.revokes(.device, "phone", issuedAt: nil, at: 0))
        #expect(revocations.revokes(.object, "car", issuedAt: nil, at: 0))
        #expect(revocations.revokes(.key, "k", issuedAt: nil, at: 0))
        #expect(revocations.revokesGrant(device: "phone-2", object: "car-2", issuedAt: nil, at: 0))
        #expect(!revocations.revokesGrant(device: "phone-2", object: "car", issuedAt: nil, at: 0))
        #expect(!revocations.revokes(.device, "phone-2", issuedAt: nil, at: 0))
        #expect(!revocations.revokes(.object, "car-2", issuedAt: nil, at: 0))
    }

    @Test func grantSelectorIsUnambiguous() throws {
        // ("ab","c") and ("a","bc") are different grants.
        let revocations = try list(#"{"sub":"ab","aud":"c"}"#)
        #expect(revocations.revokesGrant(device: "ab", object: "c", issuedAt: nil, at: 0))
        #expect(!revocations.revokesGrant(device: "a", object: "bc", issuedAt: nil, at: 0))
    }

    @Test func issuedBeforeAndSince() throws {
        let revocations = try list(
            """
            {"sub":"p","issued_before":1000}
            {"jti":"t","since":"2026-01-01T00:00:00Z"}
            """)
        #expect(revocations.revokes(.device, "p", issuedAt: 999, at: 5000))
        #expect(!revocations.revokes(.device, "p", issuedAt: 1000, at: 5000))
        #expect(revocations.revokes(.device, "p", issuedAt: nil, at: 5000))
        #expect(!revocations.revokes(.token, "t", issuedAt: nil, at: 1_767_225_599))
        #expect(revocations.revokes(.token, "t", issuedAt: nil, at: 1_767_225_600))
    }

    @Test func severalEntriesForOneSelectorAreAllConsidered() throws {
        let revocations = try list(
            """
            {"sub":"p","issued_before":100,"since":50}
            {"sub":"p","issued_before":10}
            """)
        #expect(revocations.revokes(.device, "p", issuedAt: 5, at: 0))  // second entry
        #expect(!revocations.revokes(.device, "p", issuedAt: 50, at: 0))  // first not yet in force
        #expect(revocations.revokes(.device, "p", issuedAt: 50, at: 60))  // first in force
    }

    @Test(arguments: [
        (#"{"jti":"a","sub":"b"}"#, "more than one selector"),
        (#"{"sub":"a","kid":"b"}"#, "more than one selector"),
        (#"{"issued_before":1}"#, "no selector"),
        (#"{"jti":1}"#, "must be a string"),
        (#"{"jti":"a","since":"soon"}"#, "RFC 3339"),
        (#"{"jti":"a","reason":"lost"}"#, "unknown member"),
        (#"{"jti":"a","jti":"b"}"#, "duplicate"),
        (#"["jti"]"#, "JSON object"),
        (#"{"jti":"a""#, "unexpected end"),
    ])
    func malformedEntriesStopLoadingWithTheLineNumber(_ entry: String, _ message: String) throws {
        let file = try Fixtures.writeTemporary("{\"jti\":\"ok\"}\n\n\(entry)\n", name: "revoked.jsonl")
        do {
            _ = try RevocationList.load(files: [file])
            Issue.record("loaded \(entry)")
        } catch {
            #expect(error.file == file)
            #expect(error.line == 3)
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test func manyEntriesStayFindable() {
        let entries = (0..<50_000).map { RevocationEntry(.token("token-\($0)")) }
        let revocations = RevocationList(entries: entries)
        #expect((0..<50_000).allSatisfy { revocations.revokes(.token, "token-\($0)", issuedAt: nil, at: 0) })
        #expect(!(50_000..<60_000).contains { revocations.revokes(.token, "token-\($0)", issuedAt: nil, at: 0) })
    }
}

@Suite struct NumericDateTests {
    @Test func parsesAndFormatsRFC3339() {
        #expect(NumericDate.parse("1800000000") == 1_800_000_000)
        #expect(NumericDate.parse("1800000000.25") == 1_800_000_000.25)
        #expect(NumericDate.parse("2026-01-01T00:00:00Z") == 1_767_225_600)
        #expect(NumericDate.parse("2026-01-01T01:00:00+01:00") == 1_767_225_600)
        #expect(NumericDate.parse("2024-02-29T12:00:00.5Z") == 1_709_208_000.5)
        #expect(NumericDate.parse("2023-02-29T12:00:00Z") == nil)
        #expect(NumericDate.parse("2026-01-01") == nil)
        #expect(NumericDate.parse("soon") == nil)
        #expect(NumericDate.parse("nan") == nil)
        #expect(NumericDate.rfc3339(1_767_225_600) == "2026-01-01T00:00:00Z")
        #expect(NumericDate.rfc3339(1_709_208_000.5) == "2024-02-29T12:00:00.500Z")
        #expect(NumericDate.rfc3339(-1) == "1969-12-31T23:59:59Z")
        // A hair under a whole second: its fraction computes as 1.0, and is written as .999.
        #expect(NumericDate.rfc3339(-1e-20) == "1969-12-31T23:59:59.999Z")
        #expect(NumericDate.rfc3339(1_800_000_000 - 1e-6) == "2027-01-15T07:59:59.999Z")
        for value in stride(from: -5_000_000_000.0, through: 5_000_000_000, by: 123_456_789) {
            #expect(NumericDate.parse(NumericDate.rfc3339(value)) == value)
        }
    }
}

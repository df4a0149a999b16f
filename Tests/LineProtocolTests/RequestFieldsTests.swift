import Testing
import TokenGen
import TokenVerifier

@testable import LineProtocol

/// The reader of plain request lines against the general JSON reader: a line the plain reader
/// takes must get the same fields from both, and any other line goes to the general reader.
@Suite struct RequestFieldsTests {
    /// What parsing a line gives: its fields and unescaped bytes, or why it is malformed.
    struct Parsed: Equatable {
        var fields: RequestFields
        var unescaped: [UInt8]
        var id: [UInt8]?
        var detail: String?
    }

    static func parse(_ line: [UInt8], general: Bool) -> Parsed {
        line.withUnsafeBufferPointer { buffer in
            var fields = RequestFields()
            var unescaped: [UInt8] = []
            let problem =
                general
                ? RequestFields.parseJSON(buffer, into: &fields, unescapedInto: &unescaped)
                : RequestFields.parse(buffer, into: &fields, unescapedInto: &unescaped)
            if problem != nil { fields = RequestFields() }
            return Parsed(fields: fields, unescaped: unescaped, id: problem?.id, detail: problem?.detail)
        }
    }

    /// Whether the plain reader takes `line`, and then the fields it reads.
    static func parsePlain(_ line: [UInt8]) -> RequestFields? {
        line.withUnsafeBufferPointer { buffer in
            var fields = RequestFields()
            return RequestFields.parsePlain(buffer, into: &fields) ? fields : nil
        }
    }

    static let token = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJwaG9uZS0xIn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtYW5kLW1vcmU"

    @Test func plainMemberNamesAreTheirBytes() {
        func word(_ name: String) -> UInt64 {
            name.utf8.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        let members: [(String, RequestFields.PlainMember)] = [
            ("id", .id), ("token", .token), ("device", .device), ("object", .object), ("channel", .channel),
            ("command", .command),
        ]
        for (name, member) in members {
            #expect(RequestFields.PlainMember(rawName: word(name), length: name.utf8.count) == member, "\(name)")
            #expect(RequestFields.PlainMember(rawName: word(name), length: name.utf8.count + 1) == nil, "\(name)")
        }
        for name in ["at", "i", "ids", "Id", "tokens", "toke", "devic", "objects", "channe", "comman", "", "d"] {
            #expect(RequestFields.PlainMember(rawName: word(name), length: name.utf8.count) == nil, "\(name)")
        }
    }

    @Test func plainLinesAreReadWithoutTheGeneralReader() throws {
        let lines = [
            #"{"id":1,"token":"\#(Self.token)","device":"phone-1","object":"car-2","channel":"ble","command":"unlock"}"#,
            #"{"token":"\#(Self.token)"}"#,
            #"{ "command" : "lock" ,\#t"token":"\#(Self.token)", "id" : "req-\"7\"" }"#,
            #"{"id":-0,"token":"a.b.c","object":"car-é"}"#,
            #"{"channel":"nfc","id":1234567890123456789012345,"token":"x"}"#,
        ]
        for line in lines {
            let plain = try #require(Self.parsePlain(Array(line.utf8)), "\(line)")
            let general = Self.parse(Array(line.utf8), general: true)
            #expect(general.detail == nil && general.unescaped.isEmpty && general.fields == plain, "\(line)")
        }
    }

    @Test func otherLinesGoToTheGeneralReader() {
        let lines: [(String, String?)] = [
            (#"{"id":1,"to\u006ben":"a.b.c"}"#, nil),
            (#"{"token":"a\u002eb.c"}"#, nil),
            (#"{"token":"a.b.c","at":1800000000}"#, nil),
            (#"{"id":{"a":[1]},"token":"a.b.c"}"#, nil),
            (#"{"id":1.5,"token":"a.b.c"}"#, nil),
            (#"{"id":01,"token":"a.b.c"}"#, #"the request is not valid: unexpected byte 0x31 at offset 7"#),
            (#"{"token":"a.b.c","device":"x","device":"y"}"#, #"the request is not valid: duplicate member "device""#),
            (
                #"{"token":"a.b.c","devise":"x"}"#,
                #"the request is not valid: unknown member "devise" (allowed: id, token, device, object, channel, command, at)"#
            ),
            (#"{"id":7,"device":"x"}"#, #"the request has no "token""#),
            (#"{"token":"a.b.c"} x"#, #"the request is not valid: unexpected byte 0x78 at offset 18"#),
            (#"{"token":"a.b.c",}"#, #"the request is not valid: expected a member name"#),
            (#"{"token":5}"#, #"the request is not valid: "token" must be a string"#),
            (#"{"token":"a.b.c""#, #"the request is not valid: unexpected end of JSON text"#),
            (#"{"token":"a\#u{1}b"}"#, #"the request is not valid: control character in string"#),
            (#"{"identity":1,"token":"t"}"#, nil),
        ]
        for (line, detail) in lines {
            let bytes = Array(line.utf8)
            #expect(Self.parsePlain(bytes) == nil, "\(line)")
            let parsed = Self.parse(bytes, general: false)
            #expect(parsed == Self.parse(bytes, general: true), "\(line)")
            if let detail { #expect(parsed.detail == detail, "\(line)") }
        }
    }

    @Test func mutatedLinesReadAsTheGeneralReaderReadsThem() {
        // Lines of the usual form with bytes changed, inserted, repeated or cut: wherever the plain
        // reader takes one, the general reader must read the same fields from it; every line
        // parses as the general reader parses it.
        let base = Array(
            #"{"id":42,"token":"\#(Self.token)","device":"phone-1","object":"car-2","channel":"ble","command":"unlock"}"#
                .utf8)
        let specials = Array(#" "\{}[]:,-0123456789.eEntu"#.utf8) + [0x09, 0x0A, 0x0D, 0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var generator = SplitMix64(4242)
        var taken = 0
        var differences: [String] = []
        for round in 0..<20_000 {
            var line = base
            for _ in 0...(generator.next() % 3) {
                let at = Int(generator.next() % UInt64(line.count))
                let byte = specials[Int(generator.next() % UInt64(specials.count))]
                switch generator.next() % 5 {
                case 0: line[at] = byte
                case 1: line.insert(byte, at: at)
                case 2: line.remove(at: at)
                case 3:
                    line.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: Int(generator.next() % 20)), at: at)
                default: line = Array(line[..<max(1, at)])
                }
                if line.isEmpty { line = [UInt8(ascii: "{")] }
            }
            if round % 50 == 0 { line = base }
            guard line.first == UInt8(ascii: "{") else { continue }
            let general = Self.parse(line, general: true)
            if let plain = Self.parsePlain(line) {
                taken += 1
                if general.detail != nil || general.fields != plain || !general.unescaped.isEmpty {
                    differences.append("taken: \(String(decoding: line, as: UTF8.self))")
                }
            }
            if Self.parse(line, general: false) != general {
                differences.append("parsed: \(String(decoding: line, as: UTF8.self))")
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(3))")
        #expect(taken > 2_000 && taken < 19_000, "lines the plain reader took: \(taken)")
    }
}

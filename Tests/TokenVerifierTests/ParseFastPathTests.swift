import Foundation
import TestSupport
import Testing
import TokenGen

@testable import TokenVerifier

/// The fast paths of token parsing, each compared with the general path it stands for on many
/// random inputs: known member names found in place, plain-integer NumericDates, base64url
/// sixteen characters at a time, and the header memo.
@Suite struct ParseFastPathTests {
    typealias Random = SplitMix64

    // MARK: - Known member names

    @Test func everyKnownNameIsFoundByItsQuotedWord() {
        func check<Name: KnownMemberName & CaseIterable & Equatable>(_: Name.Type) {
            for name in Name.allCases {
                let bytes = name.name.withUTF8Buffer { Array($0) }
                let word = bytes.withUnsafeBufferPointer { JSONReader.quotedWord($0) }
                #expect(Name(quoted: word) == name, "\(name.name)")
                #expect(name.count == bytes.count, "\(name.name)")
                // Whatever follows the closing quote, and not one byte shorter or longer.
                if bytes.count < 6 {
                    #expect(Name(quoted: word | 0xFFFF_FFFF_FFFF_FFFF &<< UInt64(8 * (bytes.count + 2))) == name)
                }
                #expect(Name(quoted: word & ~(0xFF &<< UInt64(8 * (bytes.count + 1)))) == nil)
            }
            #expect(Set(Name.allCases.map(\.bit)).count == Name.allCases.count)
        }
        check(ParsedToken.JSONBuilder.ClaimName.self)
        check(ParsedToken.JSONBuilder.HeaderName.self)
    }

    /// What a reader reported for one object: per member, the known name (by its text) or nil,
    /// and the range of the value; then the error, if any.
    struct Reading: Equatable {
        var members: [(String?, Range<Int>)] = []
        var error: JSONError?

        static func == (left: Reading, right: Reading) -> Bool {
            left.error == right.error && left.members.count == right.members.count
                && zip(left.members, right.members).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        }
    }

    /// Reads `text` with ``JSONReader/readObject(knowing:_:)``.
    func readKnowing(_ text: [UInt8]) -> Reading {
        var reading = Reading()
        text.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            do throws(JSONError) {
                try reader.readObject(knowing: ParsedToken.JSONBuilder.ClaimName.self) {
                    (reader: inout JSONReader, name: ParsedToken.JSONBuilder.ClaimName?) throws(JSONError) in
                    let range = try reader.skipValue()
                    reading.members.append((name.map { "\($0.name)" }, range))
                }
                try reader.finish()
            } catch {
                reading.error = error
            }
        }
        return reading
    }

    /// Reads `text` with the general ``JSONReader/readObject(_:)``, naming a member when its
    /// unescaped name is a claim name.
    func readGeneral(_ text: [UInt8]) -> Reading {
        let known = Set(ParsedToken.JSONBuilder.ClaimName.allCases.map { "\($0.name)" })
        var reading = Reading()
        text.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            do throws(JSONError) {
                try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                    let range = try reader.skipValue()
                    reading.members.append((known.contains(name.string) ? name.string : nil, range))
                }
                try reader.finish()
            } catch {
                reading.error = error
            }
        }
        return reading
    }

    /// A random member name: a claim name plain or with an escape, a near miss, or another name.
    func randomName(_ random: inout Random) -> String {
        let names = ParsedToken.JSONBuilder.ClaimName.allCases.map { "\($0.name)" }
        let name = names.randomElement(using: &random)!
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4: return name
        case 4:
            // One byte written as a \u escape.
            let bytes = Array(name.utf8)
            let index = Int.random(in: 0..<bytes.count, using: &random)
            let escaped = String(format: "\\u%04x", Int(bytes[index]))
            return String(decoding: bytes[..<index], as: UTF8.self) + escaped
                + String(decoding: bytes[(index + 1)...], as: UTF8.self)
        case 5: return name + ["x", "\\\"", "s", " "].randomElement(using: &random)!
        case 6: return String(name.dropLast())
        case 7: return ["\\\"" + name, name + "\\\"", "\\\"ch", "ch\\\"", "ro\\u006ce"].randomElement(using: &random)!
        case 8:
            return ["", "x", "status_list", "stat", "iss\\u0000", "aud\u{E9}", "\u{1F697}"].randomElement(
                using: &random)!
        default: return name.uppercased()
        }
    }

    func randomValue(_ random: inout Random) -> String {
        [
            "1", "\"x\"", "[\"a\",\"b\"]", "{\"iss\":1,\"iss\":2}", "{\"a\":[]}", "null", "true", "1799906726",
            "-0.5e3", "\"\\u0041\"", "[]", "{}",
        ].randomElement(using: &random)!
    }

    @Test func knownNamesAreReadAsTheGeneralReaderReadsThem() {
        var random = Random(11)
        var duplicates = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<12, using: &random)
            var members: [String] = []
            for _ in 0..<count {
                let space = Int.random(in: 0..<8, using: &random) == 0 ? " " : ""
                members.append("\(space)\"\(randomName(&random))\"\(space):\(space)\(randomValue(&random))\(space)")
            }
            var text = "{" + members.joined(separator: ",") + "}"
            switch Int.random(in: 0..<12, using: &random) {
            case 0: text = String(text.dropLast())  // cut short
            case 1: text = String(text.prefix(Int.random(in: 0...text.utf8.count, using: &random)))
            case 2: text += " "
            default: break
            }
            let bytes = Array(text.utf8)
            let general = readGeneral(bytes)
            #expect(readKnowing(bytes) == general, "\(text)")
            if general.error?.description.hasPrefix("duplicate member") == true { duplicates += 1 }
        }
        // The inputs hold every case: duplicates among them.
        #expect(duplicates > 1000)
    }

    @Test func aKnownNameTwiceIsRefusedWhereverWrittenAndHoweverSpelled() {
        for (text, name) in [
            (#"{"iss":"a","sub":"b","iss":"c"}"#, "iss"),
            (#"{"\u0069ss":"a","iss":"c"}"#, "iss"),
            (#"{"iss":"a","i\u0073s":"c"}"#, "iss"),
            (#"{"ch":[],"x":1,"c\u0068":[]}"#, "ch"),
            (#"{"x":1,"y":2,"\u0078":3}"#, "x"),
        ] {
            let reading = readKnowing(Array(text.utf8))
            #expect(reading.error?.description == "duplicate member \"\(name)\"", "\(text)")
            #expect(reading == readGeneral(Array(text.utf8)))
        }
    }

    // MARK: - NumericDates

    @Test func plainIntegersReadAsReadNumberReadsThem() {
        var random = Random(5)
        var fast = 0
        for _ in 0..<50_000 {
            var number = ""
            if Int.random(in: 0..<8, using: &random) == 0 { number += "-" }
            let digits = Int.random(in: 0...18, using: &random)
            for index in 0..<digits {
                let low = index == 0 && Int.random(in: 0..<4, using: &random) != 0 ? 1 : 0
                number += String(Int.random(in: low...9, using: &random))
            }
            switch Int.random(in: 0..<10, using: &random) {
            case 0: number += ".5"
            case 1: number += "e3"
            case 2: number += "E+1"
            case 3: number += "."
            default: break
            }
            let before = String(repeating: " ", count: Int.random(in: 0..<3, using: &random))
            let after = ["", ",", "}", " ", "x", ":", "\"", ",\"iss\":\"a\"}", "0"].randomElement(using: &random)!
            let bytes = Array((before + number + after).utf8)
            bytes.withUnsafeBufferPointer { buffer in
                var plain = JSONReader(buffer)
                var general = JSONReader(buffer)
                let expected: Double?
                do throws(JSONError) { expected = try general.readNumber() } catch { expected = nil }
                if let value = plain.readPlainInteger() {
                    fast += 1
                    #expect(value == expected && plain.position == general.position, "\(before + number + after)")
                } else {
                    #expect(plain.position == 0)
                    // Only what the fast path leaves out: signs, leading zeros, fractions,
                    // exponents, more than 15 digits, or no number at all.
                    let digitsOnly = number.allSatisfy(\.isNumber)
                    #expect(
                        !digitsOnly || number.isEmpty || number.first == "0" || number.count > 15
                            || after.first?.isNumber == true,
                        "\(before + number + after)")
                }
            }
        }
        #expect(fast > 10_000)
    }

    @Test func leadingDigitsOfAWord() {
        for text in ["12345678", "1234567x", "1", "0", "x", "99999999", "1:", "0012", "9/", "9\u{7F}"] {
            var bytes = Array(text.utf8)
            bytes += Array(repeating: UInt8(ascii: "}"), count: 8 - bytes.count)
            let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            let chunk = JSONReader.leadingDigits(word)
            #expect(chunk.count == digits.count, "\(text)")
            #expect(chunk.value == UInt64(String(decoding: digits, as: UTF8.self)) ?? 0, "\(text)")
        }
    }

    // MARK: - base64url

    /// A plain decoder, a character at a time: the reference.
    func referenceDecode(_ text: [UInt8]) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard text.count % 4 != 1 else { return nil }
        var bits: UInt32 = 0
        var bitCount = 0
        var output: [UInt8] = []
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            bits = bits << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: bits >> UInt32(bitCount)))
                bits &= (1 << UInt32(bitCount)) - 1
            }
        }
        return bits == 0 ? output : nil
    }

    @Test func base64URLDecodesAsAPlainDecoder() {
        var random = Random(3)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var refused = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<(Bool.random(using: &random) ? 120 : 400), using: &random)
            var text = (0..<count).map { _ in alphabet.randomElement(using: &random)! }
            if count > 0, Int.random(in: 0..<3, using: &random) == 0 {
                text[Int.random(in: 0..<count, using: &random)] = [
                    UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "."), 0, 0x80, 0xFF,
                ].randomElement(using: &random)!
            }
            let expected = referenceDecode(text)
            if expected == nil { refused += 1 }
            #expect(Base64URL.decode(text) == expected, "\(String(decoding: text, as: UTF8.self))")
        }
        #expect(refused > 5000)
    }

    /// Every byte value at places inside and between the 32-character blocks that the vector
    /// path decodes, and in the scalar tail after them.
    @Test func base64URLRefusesEveryByteOutsideTheAlphabetWherever() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for count in [32, 64, 99, 100, 130] {
            // Ending in "A" (six zero bits), so that every count's last group is canonical.
            let text = (0..<count).map { $0 == count - 1 ? UInt8(ascii: "A") : alphabet[($0 * 7 + 3) % 64] }
            let valid = referenceDecode(text)
            #expect(valid != nil && Base64URL.decode(text) == valid)
            for place in [0, 1, 15, 16, 30, 31, 32, 33, 63, 64, 95, 96, count - 1] where place < count {
                for byte in UInt8.min...UInt8.max {
                    var changed = text
                    changed[place] = byte
                    let expected = referenceDecode(changed)
                    #expect(
                        Base64URL.decode(changed) == expected,
                        "byte \(byte) at \(place) of \(count)")
                    if !alphabet.contains(byte) { #expect(expected == nil) }
                }
            }
        }
    }

    // MARK: - The header memo

    /// A compact JWS of `header` and `claims` JSON with a made-up signature (parsing does not
    /// verify it).
    func token(header: String, claims: String, signature: [UInt8] = Array(0..<64)) -> [UInt8] {
        Base64URL.encode(Array(header.utf8)) + Array(".".utf8) + Base64URL.encode(Array(claims.utf8))
            + Array(".".utf8) + Base64URL.encode(signature)
    }

    /// Everything a parse gives, for comparison.
    func summary(_ result: Result<ParsedToken, CompactToken.ParseError>) -> String {
        switch result {
        case .failure(let error): return "error: \(error.description)"
        case .success(let token):
            return
                "\(token.storage) \(String(describing: token.algorithm)) \(String(describing: token.keyID)) "
                + "\(String(describing: token.type)) \(token.hasAlgorithmMember) \(token.hasKeyIDMember) "
                + "\(token.hasTypeMember) \(token.hasCritical) \(String(describing: token.supportedAlgorithm)) "
                + "\(TokenHeader(token)) \(TokenClaims(token)) \(token.signature) \(token.signingInputLength)"
        }
    }

    @Test func aTokenParsedWithTheHeaderMemoIsTheTokenParsedWithout() {
        var random = Random(9)
        let headers = [
            #"{"alg":"Ed25519","kid":"gen-ed25519","typ":"JWT"}"#, #"{"alg":"ES256","kid":"es-1"}"#,
            #"{"alg":"EdDSA","kid":"k\u0031"}"#, #"{"alg":"Ed25519","kid":"a","crit":["x"]}"#,
            #"{"alg":1,"kid":null,"typ":"JWT"}"#, #"{"alg":"Ed25519","alg":"ES256"}"#, #"{"kid":"x""#, "{}",
            #"{"typ":"JWT","kid":"gen-ed25519","alg":"Ed25519"}"#,
        ]
        let claims = [
            Fixtures.claims(), Fixtures.claims(["aud": #"["car-1","car-\u0032"]"#]), "{}",
            Fixtures.claims(["exp": "\"x\""]),
        ]
        let memo = JWSHeaderMemo()
        for _ in 0..<3000 {
            var text = token(
                header: headers.randomElement(using: &random)!, claims: claims.randomElement(using: &random)!,
                signature: Array(repeating: 7, count: [0, 1, 63, 64, 65].randomElement(using: &random)!))
            if Int.random(in: 0..<10, using: &random) == 0 {
                text[Int.random(in: 0..<text.count, using: &random)] = UInt8(ascii: "*")
            }
            text.withUnsafeBufferPointer { buffer in
                #expect(
                    summary(ParsedToken.parse(buffer, headerMemo: memo)) == summary(ParsedToken.parse(buffer)),
                    "\(String(decoding: text, as: UTF8.self))")
            }
        }
    }
}

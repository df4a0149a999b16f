import Foundation
import TestSupport
import Testing
import TokenGen

@testable import TokenVerifier

/// The CWT side: known claim keys read by one map reader, ASCII text found a word at a time,
/// and the parse scratch's retry with larger regions.
@Suite struct CBORFastPathTests {
    typealias Random = SplitMix64
    typealias ClaimKey = ClaimsBuilder.ClaimKey

    /// What a reader reported for one map: per entry, the known key (by its number) or nil and
    /// the range of the value; then the error's description and offset, if any.
    struct Reading: Equatable {
        var entries: [String] = []
        var error: String?
    }

    func readKnowing(_ cbor: [UInt8]) -> Reading {
        var reading = Reading()
        cbor.withUnsafeBufferPointer { buffer in
            var reader = CBORReader(buffer)
            do throws(CBORError) {
                try reader.readMap(knowing: ClaimKey.self) {
                    (reader: inout CBORReader, key: ClaimKey?) throws(CBORError) in
                    let start = reader.position
                    try reader.skipItem()
                    reading.entries.append("\(key.map { "\($0.rawValue)" } ?? "-") \(start)..<\(reader.position)")
                }
            } catch {
                reading.error = "\(error.description) at \(error.offset)"
            }
        }
        return reading
    }

    func readGeneral(_ cbor: [UInt8]) -> Reading {
        var reading = Reading()
        cbor.withUnsafeBufferPointer { buffer in
            var reader = CBORReader(buffer)
            do throws(CBORError) {
                try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
                    let known: ClaimKey?
                    switch key {
                    case .integer(let value): known = ClaimKey(integer: value)
                    case .text(let range): known = ClaimKey(text: UnsafeBufferPointer(rebasing: buffer[range]))
                    case .otherInteger: known = nil
                    }
                    let start = reader.position
                    try reader.skipItem()
                    reading.entries.append("\(known.map { "\($0.rawValue)" } ?? "-") \(start)..<\(reader.position)")
                }
            } catch {
                reading.error = "\(error.description) at \(error.offset)"
            }
        }
        return reading
    }

    /// A random map key: an integer in any head width, a claim text, a near miss or another item.
    func randomKey(_ random: inout Random) -> [UInt8] {
        let value = [0, 1, 2, 3, 4, 5, 6, 7, 8, 23, 65535, 65536].randomElement(using: &random)!
        switch Int.random(in: 0..<9, using: &random) {
        case 0..<3: return value < 24 ? [UInt8(value)] : [0x19, 0xFF, 0xFF]
        case 3: return [0x18, UInt8(min(value, 255))]
        case 4: return [0x1A, 0, 0, UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        case 5:
            return [
                [0x20], [0x21], [0x3B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                [0x1B] + Array(repeating: 0xFF, count: 8),
            ].randomElement(using: &random)!
        case 6, 7:
            let text = ["ch", "cmd", "role", "env", "cmdx", "c", "", "\u{E9}nv"].randomElement(using: &random)!
            return [0x60 | UInt8(text.utf8.count)] + Array(text.utf8)
        default: return [[0x41, 0x01], [0x62, 0xC3, 0x28], [0xF6], [0x1F], [0x1C]].randomElement(using: &random)!
        }
    }

    func randomValue(_ random: inout Random) -> [UInt8] {
        [
            [0x01], [0x63, 0x61, 0x62, 0x63], [0x82, 0x61, 0x61, 0x01], [0xA1, 0x01, 0x02],
            [0xA2, 0x01, 0x02, 0x01, 0x03],
            [0x1A, 0x6B, 0x48, 0x65, 0xA6], [0xF5], [0x7F], [0x78],
        ].randomElement(using: &random)!
    }

    @Test func knownKeysAreReadAsTheGeneralReaderReadsThem() {
        var random = Random(21)
        var duplicates = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<10, using: &random)
            var cbor: [UInt8] = [0xA0 | UInt8(count)]
            for _ in 0..<count { cbor += randomKey(&random) + randomValue(&random) }
            if Int.random(in: 0..<8, using: &random) == 0 {
                cbor = Array(cbor.prefix(Int.random(in: 0...cbor.count, using: &random)))
            }
            let general = readGeneral(cbor)
            #expect(readKnowing(cbor) == general, "\(cbor)")
            if general.error?.hasPrefix("a map key appears twice") == true { duplicates += 1 }
        }
        #expect(duplicates > 1000)
    }

    @Test func asciiIsFoundAsByteByByte() {
        var random = Random(4)
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<40, using: &random)
            let bytes = (0..<count).map { _ in
                Int.random(in: 0..<30, using: &random) == 0
                    ? UInt8.random(in: 0x80...0xFF, using: &random)
                    : UInt8.random(in: 0..<0x80, using: &random)
            }
            let lower = Int.random(in: 0...count, using: &random)
            let upper = Int.random(in: lower...count, using: &random)
            bytes.withUnsafeBufferPointer { buffer in
                let reader = CBORReader(buffer)
                #expect(reader.isASCII(lower..<upper) == bytes[lower..<upper].allSatisfy { $0 < 0x80 })
            }
        }
    }

    @Test func aCWTWhoseListsOverflowTheStackScratchIsReadWhole() throws {
        let key = Fixtures().ed
        for count in [1, 40, 100, 1000] {
            let list = "[" + (0..<count).map { "\"c\($0)\"" }.joined(separator: ",") + "]"
            let token = Fixtures.cwt(key, claims: Fixtures.claims(["ch": list, "aud": list]))
            let parsed = try Array(token.utf8).withUnsafeBufferPointer { try ParsedToken.parse($0).get() }
            #expect(parsed.strings(parsed.channels) == (0..<count).map { "c\($0)" })
            #expect(parsed.strings(parsed.audience) == (0..<count).map { "c\($0)" })
        }
    }
}

import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// The Token Status List draft's own vectors, read from `../shared/testvectors/token-status-list`
/// beside the checkout (their collection asks not to be copied into projects; see
/// Tests/Vectors/README.md), skipped without it and failed in CI: the §4 examples and the
/// Appendix C lists of 2^20 entries for 1, 2, 4 and 8 bits decode to their published values
/// through the system zlib and the LSB-first entry rule.
@Suite struct StatusListVectorTests {
    static let directory = Repository.root.deletingLastPathComponent().appendingPathComponent(
        "shared/testvectors/token-status-list")

    func load(_ name: String) throws -> Any {
        let url = Self.directory.appendingPathComponent(name)
        try ExternalRequirement.require(
            FileManager.default.fileExists(atPath: url.path),
            "the Token Status List vectors are not at \(url.path) (shared/testvectors beside the checkout)")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    }

    @Test func section4Examples() throws {
        let examples = try #require(try load("sec4_small.json") as? [[String: Any]])
        #expect(examples.count == 2)
        for example in examples {
            let bits = example["bits"] as! Int
            let compressed = hexBytes(example["compressed_hex"] as! String)
            let json = example["json"] as! [String: Any]
            #expect(
                Base64URL.decode(Array((json["lst"] as! String).utf8)) == compressed, "the JSON lst is the ZLIB bytes")
            let inflated = try compressed.withUnsafeBufferPointer { try Zlib.inflate($0, limit: 1 << 20) }
            #expect(inflated == hexBytes(example["byte_array_hex"] as! String))
            let entries = StatusEntries(bytes: inflated, bits: bits)
            let statuses = (example["statuses"] as! [Int]).map(UInt8.init)
            #expect((0..<statuses.count).map { entries.value(at: UInt64($0)) } == statuses, "\(example["source"]!)")
            // The CBOR form {"bits": b, "lst": h'…'} holds the same bytes.
            #expect(hexBytes(example["cbor_hex"] as! String).suffix(compressed.count) == compressed[...])
        }
    }

    @Test(arguments: [1, 2, 4, 8])
    func appendixCList(_ bits: Int) throws {
        let vector = try #require(try load("appC_bits\(bits).json") as? [String: Any])
        let json = vector["json"] as! [String: Any]
        #expect(json["bits"] as? Int == bits)
        let compressed = try #require(Base64URL.decode(Array((json["lst"] as! String).utf8)))
        let inflated = try compressed.withUnsafeBufferPointer { try Zlib.inflate($0, limit: 1 << 24) }
        #expect(inflated.count == vector["decompressed_len"] as? Int)
        let entries = StatusEntries(bytes: inflated, bits: bits)
        #expect(entries.count == vector["size_entries"] as? Int)
        let assignments = (vector["assignments_index_value"] as! [[Int]]).map { ($0[0], UInt8($0[1])) }.sorted {
            $0.0 < $1.0
        }
        #expect(!assignments.isEmpty)
        for (index, value) in assignments { #expect(entries.value(at: UInt64(index)) == value, "index \(index)") }
        // Every entry not assigned a non-zero value is 0x00 (Appendix C.4 also assigns 0 to one index).
        let nonZero = entries.nonZero()
        let assignedNonZero = assignments.filter { $0.1 != 0 }
        #expect(nonZero.map(\.index) == assignedNonZero.map(\.0), "every other entry is 0x00")
        #expect(nonZero.map(\.status) == assignedNonZero.map(\.1))
        #expect(entries.value(at: UInt64(entries.count)) == nil)
    }

    /// What the inflater refuses: a stream past the limit (a bomb), raw DEFLATE without the ZLIB
    /// header, a wrong Adler-32, a truncated stream, bytes after the end, a preset dictionary.
    @Test func zlibRefusals() throws {
        let million = Deflate.zlib([UInt8](repeating: 0, count: 1_000_000))
        #expect(million.count < 2000)
        func inflate(_ bytes: [UInt8], limit: Int = 1 << 20) -> String? {
            do {
                _ = try bytes.withUnsafeBufferPointer { try Zlib.inflate($0, limit: limit) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(inflate(million) == nil)
        #expect(inflate(million, limit: 999_999)?.contains("more than 999999 bytes") == true)
        #expect(inflate(Array(million.dropFirst(2)))?.contains("broken") == true, "raw DEFLATE")
        var badChecksum = million
        badChecksum[badChecksum.count - 1] ^= 1
        #expect(inflate(badChecksum)?.contains("broken") == true)
        #expect(inflate(Array(million.dropLast(3)))?.contains("truncated") == true)
        #expect(inflate(million + [0])?.contains("follow the end") == true)
        #expect(inflate([0x78, 0xBB, 0, 0, 0, 0])?.contains("dictionary") == true)  // FDICT set
        #expect(inflate([])?.contains("truncated") == true)
    }
}

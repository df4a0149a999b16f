import Foundation
import TestSupport
import Testing

@testable import TokenVerifier

/// Status lists made apart from the Swift code (`Tests/Vectors/status-lists/make_lists.py`: Python's
/// zlib at levels 0, 1, 6 and 9, so stored, fixed and dynamic DEFLATE blocks, and the draft's
/// LSB-first packing) for 1, 2, 4 and 8 bits, up to 2^20 entries: each `lst` inflates through the
/// system zlib and reads back every non-zero entry, and every other entry reads 0x00. In the
/// repository, so they run in a clone with nothing beside it (the draft's own vectors,
/// `StatusListVectorTests`, are read from beside the checkout).
@Suite struct StatusListListsTests {
    struct List: Decodable {
        var bits: Int
        var size: Int
        var zlib_level: Int
        var lst: String
        var non_zero: [[Int]]
    }

    static func lists() throws -> [List] {
        struct File: Decodable { var lists: [List] }
        return try JSONDecoder().decode(
            File.self, from: Data(contentsOf: Repository.vectors("status-lists/lists.json"))
        )
        .lists
    }

    @Test func everyListReadsBackAsWritten() throws {
        let lists = try Self.lists()
        #expect(lists.count == 8)
        #expect(Set(lists.map(\.bits)) == [1, 2, 4, 8] && Set(lists.map(\.zlib_level)) == [0, 1, 6, 9])
        for list in lists {
            let compressed = try #require(Base64URL.decode(Array(list.lst.utf8)), "lst is base64url")
            let inflated = try compressed.withUnsafeBufferPointer { try Zlib.inflate($0, limit: 1 << 20) }
            #expect(inflated.count == (list.size * list.bits + 7) / 8)
            let entries = StatusEntries(bytes: inflated, bits: list.bits)
            #expect(entries.count == inflated.count * 8 / list.bits && entries.count >= list.size)
            let written = list.non_zero.map { (index: $0[0], status: UInt8($0[1])) }
            let read = entries.nonZero()
            let difference = zip(read, written).first { $0.index != $1.index || $0.status != $1.status }
            #expect(
                read.count == written.count && difference == nil,
                "bits \(list.bits), level \(list.zlib_level): \(read.count) non-zero read, \(written.count) written, first difference \(String(describing: difference))"
            )
            for entry in written.prefix(50) { #expect(entries.value(at: UInt64(entry.index)) == entry.status) }
            #expect(entries.value(at: UInt64(entries.count)) == nil)
        }
    }
}

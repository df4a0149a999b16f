/// An Arrow IPC stream read back message by message, for the tests of `verify --output-format
/// arrow`: enough of the FlatBuffers format to read a message's header and a record batch's
/// length, nodes and buffers.

/// The messages of an Arrow IPC stream, each with the FlatBuffers table of its header.
package struct IPCMessages: RandomAccessCollection {
    package struct Message {
        /// 1 for a schema, 3 for a record batch.
        package var headerType: UInt8
        package var header: FlatTable
        package var body: [UInt8]
    }

    package struct Malformed: Error {}

    package var messages: [Message] = []
    package var startIndex: Int { 0 }
    package var endIndex: Int { messages.count }
    package subscript(index: Int) -> Message { messages[index] }

    /// The messages of a whole stream, up to its end-of-stream marker, which must end it.
    package init(_ stream: [UInt8]) throws {
        var position = 0
        func int32(_ at: Int) -> Int32 {
            stream.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: Int32.self) }
        }
        while true {
            guard position + 8 <= stream.count, int32(position) == -1 else { throw Malformed() }
            let length = Int(int32(position + 4))
            if length == 0 { break }
            guard length % 8 == 0 else { throw Malformed() }
            let metadata = Array(stream[(position + 8)..<(position + 8 + length)])
            let message = FlatTable(metadata, at: Int(FlatTable.uint32(metadata, 0)))
            let bodyStart = position + 8 + length
            let bodyLength = Int(message.long(3))
            messages.append(
                Message(
                    headerType: message.byte(1), header: message.table(2),
                    body: Array(stream[bodyStart..<(bodyStart + bodyLength)])))
            position = bodyStart + bodyLength
        }
        guard position + 8 == stream.count else { throw Malformed() }
    }
}

/// A FlatBuffers table read from its buffer: a field by its slot.
package struct FlatTable {
    let bytes: [UInt8]
    let position: Int

    package init(_ bytes: [UInt8], at position: Int) {
        self.bytes = bytes
        self.position = position
    }

    package static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
    }

    /// Where slot `slot`'s field lies (nil: absent).
    package func field(_ slot: Int) -> Int? {
        let vtable = position - Int(Int32(bitPattern: Self.uint32(bytes, position)))
        let vtableSize = Int(bytes[vtable]) | Int(bytes[vtable + 1]) << 8
        guard 4 + 2 * slot < vtableSize else { return nil }
        let offset = Int(bytes[vtable + 4 + 2 * slot]) | Int(bytes[vtable + 5 + 2 * slot]) << 8
        return offset == 0 ? nil : position + offset
    }

    package func byte(_ slot: Int) -> UInt8 { field(slot).map { bytes[$0] } ?? 0 }

    package func long(_ slot: Int) -> Int64 {
        field(slot).map { at in bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: Int64.self) } } ?? 0
    }

    package func table(_ slot: Int) -> FlatTable {
        let at = field(slot)!
        return FlatTable(bytes, at: at + Int(Self.uint32(bytes, at)))
    }

    /// A vector of structs of two 64-bit integers.
    package func pairs(_ slot: Int) -> [(Int64, Int64)] {
        let at = field(slot)!
        let vector = at + Int(Self.uint32(bytes, at))
        return (0..<Int(Self.uint32(bytes, vector))).map { index in
            bytes.withUnsafeBytes {
                (
                    $0.loadUnaligned(fromByteOffset: vector + 4 + 16 * index, as: Int64.self),
                    $0.loadUnaligned(fromByteOffset: vector + 12 + 16 * index, as: Int64.self)
                )
            }
        }
    }
}

/// A column of an Arrow schema: the types an answer needs.
package struct ArrowField: Sendable {
    package indirect enum DataType: Sendable {
        case int64
        case float64
        case bool
        case utf8
        case list(ArrowField)
    }

    package var name: String
    package var type: DataType
    package var nullable: Bool

    package init(_ name: String, _ type: DataType, nullable: Bool = true) {
        self.name = name
        self.type = type
        self.nullable = nullable
    }
}

/// The messages of an Arrow IPC stream (the Arrow columnar format's "streaming format"): a schema
/// message, record batch messages, and the end-of-stream marker. Each message is its FlatBuffers
/// metadata (`Message.fbs`, `Schema.fbs`), padded to a multiple of 8 bytes after a continuation
/// marker and its length, then its body: the batch's buffers, each padded to a multiple of 8.
package enum ArrowIPC {
    /// The end-of-stream marker: a continuation marker and a zero length.
    package static let endOfStream: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]

    /// `MetadataVersion.V5`.
    private static let version: Int16 = 4

    /// `MessageHeader` union members.
    private enum Header: UInt8 {
        case schema = 1
        case recordBatch = 3
    }

    /// The schema message for `fields`.
    package static func schemaMessage(_ fields: [ArrowField]) -> [UInt8] {
        var writer = FlatBufferWriter()
        // Message { version, header_type, header, bodyLength }
        let message = writer.table([.short(version), .byte(Header.schema.rawValue), .reference, .long(0)])
        // Schema { endianness (Little, the default), fields }
        let schema = writer.table([nil, .reference], for: message[0])
        writeFields(fields, for: schema[0], into: &writer)
        var output: [UInt8] = []
        encapsulate(writer.bytes, body: [], into: &output)
        return output
    }

    private static func writeFields(_ fields: [ArrowField], for reference: Int, into writer: inout FlatBufferWriter) {
        let elements = writer.referenceVector(count: fields.count, for: reference)
        for (field, element) in zip(fields, elements) {
            // Field { name, nullable, type_type, type, dictionary, children }
            let (typeCode, children): (UInt8, [ArrowField]) =
                switch field.type {
                case .int64: (2, [])
                case .float64: (3, [])
                case .utf8: (5, [])
                case .bool: (6, [])
                case .list(let item): (12, [item])
                }
            let references = writer.table(
                [.reference, .byte(field.nullable ? 1 : 0), .byte(typeCode), .reference, nil, .reference],
                for: element)
            writer.string(field.name, for: references[0])
            switch field.type {
            case .int64: writer.table([.int(64), .byte(1)], for: references[1])  // Int { bitWidth, is_signed }
            case .float64: writer.table([.short(2)], for: references[1])  // FloatingPoint { precision: DOUBLE }
            case .bool, .utf8, .list: writer.table([], for: references[1])
            }
            writeFields(children, for: references[2], into: &writer)
        }
    }

    /// Appends a record batch message of `length` rows to `output`: its metadata names the field
    /// nodes and the buffers that `body` holds.
    package static func appendRecordBatch(length: Int, body: ArrowBody, to output: inout [UInt8]) {
        var writer = FlatBufferWriter()
        let message = writer.table([
            .short(version), .byte(Header.recordBatch.rawValue), .reference, .long(Int64(body.bytes.count)),
        ])
        // RecordBatch { length, nodes, buffers }
        let batch = writer.table([.long(Int64(length)), .reference, .reference], for: message[0])
        writer.pairVector(body.nodes, for: batch[0])
        writer.pairVector(body.buffers, for: batch[1])
        encapsulate(writer.bytes, body: body.bytes, into: &output)
    }

    private static func encapsulate(_ metadata: [UInt8], body: [UInt8], into output: inout [UInt8]) {
        let padded = (metadata.count + 7) / 8 * 8
        output.reserveCapacity(output.count + 8 + padded + body.count)
        output.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])
        withUnsafeBytes(of: Int32(padded).littleEndian) { output.append(contentsOf: $0) }
        output.append(contentsOf: metadata)
        output.append(contentsOf: repeatElement(0, count: padded - metadata.count))
        output.append(contentsOf: body)
    }
}

/// A record batch's body as it is written: the buffers back to back, each padded to a multiple
/// of 8 bytes, with the field nodes (rows and nulls of each column, depth first) and the buffers'
/// places that the batch's metadata lists.
package struct ArrowBody {
    package private(set) var bytes: [UInt8] = []
    private(set) var nodes: [(Int64, Int64)] = []
    private(set) var buffers: [(Int64, Int64)] = []

    package init() {}

    /// Adds a column's (or a list's child's) node: its length and null count.
    package mutating func addNode(length: Int, nullCount: Int) {
        nodes.append((Int64(length), Int64(nullCount)))
    }

    /// Adds a buffer.
    package mutating func addBuffer(_ buffer: UnsafeRawBufferPointer) {
        buffers.append((Int64(bytes.count), Int64(buffer.count)))
        bytes.append(contentsOf: buffer)
        bytes.append(contentsOf: repeatElement(0, count: (8 - buffer.count % 8) % 8))
    }

    /// Adds a buffer that holds the array's bytes.
    package mutating func addBuffer<Element>(_ array: [Element]) {
        array.withUnsafeBytes { addBuffer($0) }
    }
}

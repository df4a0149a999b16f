/// Writes a FlatBuffers buffer front to back, in the few shapes that Arrow's IPC metadata needs:
/// tables of scalars and references, vectors of references or of 16-byte structs, and strings.
///
/// FlatBuffers references point forward, so an object a table refers to is written after the
/// table, and the reference is filled in then (``link(_:)``). Each table's vtable is written just
/// before it. Scalars lie at multiples of their size from the buffer's start, as the format's
/// verifier requires.
struct FlatBufferWriter {
    /// A table field's value.
    enum Field {
        case byte(UInt8)
        case short(Int16)
        case int(Int32)
        case long(Int64)
        /// A reference to an object written later: ``table(_:)`` returns where it lies.
        case reference

        var size: Int {
            switch self {
            case .byte: 1
            case .short: 2
            case .int, .reference: 4
            case .long: 8
            }
        }
    }

    /// The buffer so far; its first four bytes are the reference to the root table.
    private(set) var bytes: [UInt8] = [0, 0, 0, 0]
    private var hasRoot = false

    init() {}

    /// Writes a table whose slot `k` holds `fields[k]` (nil: absent), points `reference` at it,
    /// and returns where each of its own references lies, in slot order. The first table written
    /// (with no reference) is the root.
    @discardableResult
    mutating func table(_ fields: [Field?], for reference: Int? = nil) -> [Int] {
        // The layout: the vtable's offset, then the fields from the largest to the smallest, each
        // at a multiple of its size (the table starts at a multiple of 8).
        var offsets = [Int](repeating: 0, count: fields.count)
        var end = 4
        for size in [8, 4, 2, 1] {
            for (slot, field) in fields.enumerated() where field?.size == size {
                end = (end + size - 1) / size * size
                offsets[slot] = end
                end += size
            }
        }
        align(to: 2)
        let vtable = bytes.count
        append(UInt16(4 + 2 * fields.count))
        append(UInt16(end))
        for offset in offsets { append(UInt16(offset)) }
        align(to: 8)
        let table = bytes.count
        if let reference {
            patch(UInt32(table - reference), at: reference)
        } else {
            precondition(!hasRoot, "a table with no reference after the root")
            patch(UInt32(table), at: 0)
            hasRoot = true
        }
        bytes.append(contentsOf: repeatElement(0, count: end))
        patch(Int32(table - vtable), at: table)
        var references: [Int] = []
        for (slot, field) in fields.enumerated() {
            let at = table + offsets[slot]
            switch field {
            case .byte(let value)?: bytes[at] = value
            case .short(let value)?: patch(value, at: at)
            case .int(let value)?: patch(value, at: at)
            case .long(let value)?: patch(value, at: at)
            case .reference?: references.append(at)
            case nil: break
            }
        }
        return references
    }

    /// Writes a string and points `reference` at it.
    mutating func string(_ text: String, for reference: Int) {
        align(to: 4)
        link(reference)
        append(UInt32(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// Writes a vector of `count` references, points `reference` at it, and returns where each
    /// element lies (to be pointed at its object in turn).
    mutating func referenceVector(count: Int, for reference: Int) -> [Int] {
        align(to: 4)
        link(reference)
        append(UInt32(count))
        let first = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 4 * count))
        return (0..<count).map { first + 4 * $0 }
    }

    /// Writes a vector of structs of two 64-bit integers each (Arrow's `FieldNode` and `Buffer`)
    /// and points `reference` at it.
    mutating func pairVector(_ pairs: [(Int64, Int64)], for reference: Int) {
        // The elements lie at a multiple of 8, after the vector's 4-byte length.
        while bytes.count % 8 != 4 { bytes.append(0) }
        link(reference)
        append(UInt32(pairs.count))
        for (first, second) in pairs {
            append(first)
            append(second)
        }
    }

    /// Points the reference at `reference` to the next byte to be written.
    private mutating func link(_ reference: Int) {
        patch(UInt32(bytes.count - reference), at: reference)
    }

    private mutating func align(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    private mutating func append<Value: FixedWidthInteger>(_ value: Value) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func patch<Value: FixedWidthInteger>(_ value: Value, at position: Int) {
        withUnsafeBytes(of: value.littleEndian) { value in
            for index in 0..<value.count { bytes[position + index] = value[index] }
        }
    }
}

/// A validity bitmap being built: bit `k` (least significant first) says whether value `k` is
/// there.
package struct ArrowValidity {
    private(set) var bits: [UInt8] = []
    package private(set) var count = 0
    package private(set) var nullCount = 0
    package init() {}

    /// Empties the bitmap, keeping its memory.
    package mutating func removeAll() {
        bits.removeAll(keepingCapacity: true)
        count = 0
        nullCount = 0
    }

    package mutating func append(_ isValid: Bool) {
        if count % 8 == 0 { bits.append(0) }
        if isValid { bits[bits.count - 1] |= 1 << (count % 8) } else { nullCount += 1 }
        count += 1
    }

    /// Adds the bitmap to `body`, or an empty buffer when no value is missing.
    package func add(to body: inout ArrowBody) {
        if nullCount == 0 {
            body.addBuffer(UnsafeRawBufferPointer(start: nil, count: 0))
        } else {
            body.addBuffer(bits)
        }
    }
}

/// A non-null 64-bit integer column.
package struct ArrowInt64Column {
    private var values: [Int64] = []
    package init() {}

    package mutating func append(_ value: Int64) { values.append(value) }

    package mutating func removeAll() { values.removeAll(keepingCapacity: true) }

    package func add(to body: inout ArrowBody) {
        body.addNode(length: values.count, nullCount: 0)
        body.addBuffer(UnsafeRawBufferPointer(start: nil, count: 0))
        body.addBuffer(values)
    }
}

/// A non-null boolean column.
package struct ArrowBoolColumn {
    private var values = ArrowValidity()
    package init() {}

    package mutating func append(_ value: Bool) { values.append(value) }

    package mutating func removeAll() { values.removeAll() }

    package func add(to body: inout ArrowBody) {
        body.addNode(length: values.count, nullCount: 0)
        body.addBuffer(UnsafeRawBufferPointer(start: nil, count: 0))
        body.addBuffer(values.bits)
    }
}

/// A nullable 64-bit floating point column.
package struct ArrowFloat64Column {
    private var validity = ArrowValidity()
    private var values: [Double] = []
    package init() {}

    package mutating func append(_ value: Double?) {
        validity.append(value != nil)
        values.append(value ?? 0)
    }

    package mutating func removeAll() {
        validity.removeAll()
        values.removeAll(keepingCapacity: true)
    }

    package func add(to body: inout ArrowBody) {
        body.addNode(length: validity.count, nullCount: validity.nullCount)
        validity.add(to: &body)
        body.addBuffer(values)
    }
}

/// A nullable UTF-8 text column (32-bit offsets).
package struct ArrowTextColumn {
    private var validity = ArrowValidity()
    private var offsets: [Int32] = [0]
    /// The texts back to back.
    package private(set) var data: [UInt8] = []
    package init() {}

    package var count: Int { validity.count }

    /// Appends `text` (valid UTF-8).
    package mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        data.append(contentsOf: text)
        close(isValid: true)
    }

    package mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    package mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Appends a text written by `body` straight into the column's data.
    package mutating func append(writing body: (inout [UInt8]) -> Void) {
        body(&data)
        close(isValid: true)
    }

    package mutating func appendNull() { close(isValid: false) }

    /// Empties the column, keeping its memory.
    package mutating func removeAll() {
        validity.removeAll()
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        data.removeAll(keepingCapacity: true)
    }

    private mutating func close(isValid: Bool) {
        validity.append(isValid)
        offsets.append(Int32(data.count))
    }

    package func add(to body: inout ArrowBody) {
        body.addNode(length: validity.count, nullCount: validity.nullCount)
        validity.add(to: &body)
        body.addBuffer(offsets)
        body.addBuffer(data)
    }
}

/// A nullable column of lists of UTF-8 texts.
package struct ArrowTextListColumn {
    private var validity = ArrowValidity()
    private var offsets: [Int32] = [0]
    private var items = ArrowTextColumn()
    package init() {}

    /// The items' text bytes so far.
    package var dataCount: Int { items.data.count }

    package mutating func append(_ texts: some Sequence<String>) {
        for text in texts { items.append(text) }
        validity.append(true)
        offsets.append(Int32(items.count))
    }

    package mutating func appendNull() {
        validity.append(false)
        offsets.append(Int32(items.count))
    }

    package mutating func removeAll() {
        validity.removeAll()
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        items.removeAll()
    }

    package func add(to body: inout ArrowBody) {
        body.addNode(length: validity.count, nullCount: validity.nullCount)
        validity.add(to: &body)
        body.addBuffer(offsets)
        items.add(to: &body)
    }
}

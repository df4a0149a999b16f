/// A validity bitmap being built: bit `k` (least significant first) says whether value `k` is
/// there.
struct ArrowValidity {
    private(set) var bits: [UInt8] = []
    private(set) var count = 0
    private(set) var nullCount = 0

    /// Empties the bitmap, keeping its memory.
    mutating func removeAll() {
        bits.removeAll(keepingCapacity: true)
        count = 0
        nullCount = 0
    }

    mutating func append(_ isValid: Bool) {
        if count % 8 == 0 { bits.append(0) }
        if isValid { bits[bits.count - 1] |= 1 << (count % 8) } else { nullCount += 1 }
        count += 1
    }

    /// Adds the bitmap to `body`, or an empty buffer when no value is missing.
    func add(to body: inout ArrowBody) {
        if nullCount == 0 {
            body.addBuffer(UnsafeRawBufferPointer(start: nil, count: 0))
        } else {
            body.addBuffer(bits)
        }
    }
}

/// A non-null 64-bit integer column.
struct ArrowInt64Column {
    private var values: [Int64] = []

    mutating func append(_ value: Int64) { values.append(value) }

    mutating func removeAll() { values.removeAll(keepingCapacity: true) }

    func add(to body: inout ArrowBody) {
        body.addNode(length: values.count, nullCount: 0)
        body.addBuffer(UnsafeRawBufferPointer(start: nil, count: 0))
        body.addBuffer(values)
    }
}

/// A non-null boolean column.
struct ArrowBoolColumn {
    private var values = ArrowValidity()

    mutating func append(_ value: Bool) { values.append(value) }

    mutating func removeAll() { values.removeAll() }

    func add(to body: inout ArrowBody) {
        body.addNode(length: values.count, nullCount: 0)
        body.addBuffer(UnsafeRawBufferPointer(start: nil, count: 0))
        body.addBuffer(values.bits)
    }
}

/// A nullable 64-bit floating point column.
struct ArrowFloat64Column {
    private var validity = ArrowValidity()
    private var values: [Double] = []

    mutating func append(_ value: Double?) {
        validity.append(value != nil)
        values.append(value ?? 0)
    }

    mutating func removeAll() {
        validity.removeAll()
        values.removeAll(keepingCapacity: true)
    }

    func add(to body: inout ArrowBody) {
        body.addNode(length: validity.count, nullCount: validity.nullCount)
        validity.add(to: &body)
        body.addBuffer(values)
    }
}

/// A nullable UTF-8 text column (32-bit offsets).
struct ArrowTextColumn {
    private var validity = ArrowValidity()
    private var offsets: [Int32] = [0]
    /// The texts back to back.
    private(set) var data: [UInt8] = []

    var count: Int { validity.count }

    /// Appends `text` (valid UTF-8).
    mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        data.append(contentsOf: text)
        close(isValid: true)
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Appends a text written by `body` straight into the column's data.
    mutating func append(writing body: (inout [UInt8]) -> Void) {
        body(&data)
        close(isValid: true)
    }

    mutating func appendNull() { close(isValid: false) }

    /// Empties the column, keeping its memory.
    mutating func removeAll() {
        validity.removeAll()
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        data.removeAll(keepingCapacity: true)
    }

    private mutating func close(isValid: Bool) {
        validity.append(isValid)
        offsets.append(Int32(data.count))
    }

    func add(to body: inout ArrowBody) {
        body.addNode(length: validity.count, nullCount: validity.nullCount)
        validity.add(to: &body)
        body.addBuffer(offsets)
        body.addBuffer(data)
    }
}

/// A nullable column of lists of UTF-8 texts.
struct ArrowTextListColumn {
    private var validity = ArrowValidity()
    private var offsets: [Int32] = [0]
    private var items = ArrowTextColumn()

    /// The items' text bytes so far.
    var dataCount: Int { items.data.count }

    mutating func append(_ texts: some Sequence<String>) {
        for text in texts { items.append(text) }
        validity.append(true)
        offsets.append(Int32(items.count))
    }

    mutating func appendNull() {
        validity.append(false)
        offsets.append(Int32(items.count))
    }

    mutating func removeAll() {
        validity.removeAll()
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        items.removeAll()
    }

    func add(to body: inout ArrowBody) {
        body.addNode(length: validity.count, nullCount: validity.nullCount)
        validity.add(to: &body)
        body.addBuffer(offsets)
        items.add(to: &body)
    }
}

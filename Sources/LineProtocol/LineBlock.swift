/// Input lines held back to back in one buffer, each with its number: how a stream hands lines
/// to ``LineAnswerer`` without an array (an allocation, a copy and a free) for each line.
public struct LineBlock: Sendable {
    /// One line of a block.
    public struct Entry: Sendable {
        /// The line's 1-based number in its input.
        public var number: Int
        /// Where its bytes lie in ``LineBlock/bytes``, or nil when the line was longer than the
        /// limit (it is then answered `malformed_request` without ever having been held).
        public var range: Range<Int>?
    }

    /// The lines' bytes, back to back.
    public private(set) var bytes: [UInt8] = []
    /// The lines, in order.
    public private(set) var entries: [Entry] = []

    public init() {}

    /// A block holding `lines`.
    public init(_ lines: [InputLine]) {
        bytes.reserveCapacity(lines.reduce(0) { $0 + ($1.bytes?.count ?? 0) })
        entries.reserveCapacity(lines.count)
        for line in lines {
            guard let lineBytes = line.bytes else {
                entries.append(Entry(number: line.number, range: nil))
                continue
            }
            lineBytes.withUnsafeBufferPointer { append(number: line.number, bytes: $0) }
        }
    }

    /// A block of no line yet over `bytes`, which its lines are then marked in
    /// (``appendLine(number:range:)``) without being copied.
    public init(holding bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of lines.
    public var count: Int { entries.count }

    /// Whether the block holds no line.
    public var isEmpty: Bool { entries.isEmpty }

    /// Appends line `number`: its bytes, or nil for a line longer than the limit.
    public mutating func append(number: Int, bytes line: UnsafeBufferPointer<UInt8>?) {
        guard let line else {
            entries.append(Entry(number: number, range: nil))
            return
        }
        let start = bytes.count
        bytes.append(contentsOf: line)
        entries.append(Entry(number: number, range: start..<bytes.count))
    }

    /// Appends line `number`, whose bytes are already held at `range` (nil for a line longer
    /// than the limit).
    public mutating func appendLine(number: Int, range: Range<Int>?) {
        if let range { precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count) }
        entries.append(Entry(number: number, range: range))
    }

    /// Empties the block, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    /// Makes room for `byteCount` more bytes of lines, so that appending them moves no byte held.
    public mutating func reserveCapacity(forMoreBytes byteCount: Int) {
        bytes.reserveCapacity(bytes.count + byteCount)
    }

    /// The bytes held for line `index` (nil: longer than the limit).
    public func bytes(of index: Int) -> ArraySlice<UInt8>? {
        entries[index].range.map { bytes[$0] }
    }
}

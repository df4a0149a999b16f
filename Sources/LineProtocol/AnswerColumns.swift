import TokenFormats
import TokenVerifier

/// Answers as Arrow columns, one row an answer: the record batches of `verify --output-format
/// arrow`. The columns are the answer line's members (spec §6), null where a line lacks one:
/// `line`, `id` (its JSON text), `valid`, `reason`, `detail`, `jti`, `sub`, `aud` (the string, or
/// an array as its JSON text), `kid` (null for a token its chain verified, whose answer line names
/// the leaf's `x5t#S256` instead), `alg`, `exp`, `role`, `format` (`cwt` for a CWT), and with
/// audit `reasons` and `details`. A text holds the same characters as the answer line's string.
package struct AnswerColumns {
    /// The columns' fields, in order.
    package static func fields(audit: Bool) -> [ArrowField] {
        var fields = [ArrowField("line", .int64, nullable: false), ArrowField("id", .utf8)]
        fields.append(ArrowField("valid", .bool, nullable: false))
        for name in ["reason", "detail", "jti", "sub", "aud", "kid", "alg"] { fields.append(ArrowField(name, .utf8)) }
        fields.append(ArrowField("exp", .float64))
        fields.append(ArrowField("role", .utf8))
        fields.append(ArrowField("format", .utf8))
        if audit {
            fields.append(ArrowField("reasons", .list(ArrowField("item", .utf8, nullable: false))))
            fields.append(ArrowField("details", .list(ArrowField("item", .utf8, nullable: false))))
        }
        return fields
    }

    /// The stream's first message: the schema of these columns.
    package static func schemaMessage(audit: Bool) -> [UInt8] {
        ArrowIPC.schemaMessage(fields(audit: audit))
    }

    /// The longest line the Arrow format answers (`--max-line-bytes` at most): 256 MiB. A text
    /// of its answer holds at most 4.5 bytes a byte of the line (three quarters of the line
    /// decoded, each byte escaped in at most six in `aud`'s JSON text), so at most 1.125 GiB.
    package static let maxLineBytes = 256 << 20

    /// The rows are written once one of the texts' columns holds more than this many bytes:
    /// 768 MiB, so that with one more answer's text a column stays below 2 GiB and its 32-bit
    /// offsets never overflow.
    private let fullBytes: Int
    private let audit: Bool
    private var line = ArrowInt64Column()
    private var id = ArrowTextColumn()
    private var valid = ArrowBoolColumn()
    private var reason = ArrowTextColumn()
    private var detail = ArrowTextColumn()
    private var tokenID = ArrowTextColumn()
    private var subject = ArrowTextColumn()
    private var audience = ArrowTextColumn()
    private var keyID = ArrowTextColumn()
    private var algorithm = ArrowTextColumn()
    private var expiresAt = ArrowFloat64Column()
    private var role = ArrowTextColumn()
    private var format = ArrowTextColumn()
    private var reasons = ArrowTextListColumn()
    private var details = ArrowTextListColumn()
    /// The rows so far.
    package private(set) var count = 0

    package init(audit: Bool, fullBytes: Int = 768 << 20) {
        self.audit = audit
        self.fullBytes = fullBytes
    }

    /// Whether the rows should be written before more are added: one of the texts' columns
    /// holds more than `fullBytes`.
    package var isFull: Bool {
        // Only the columns whose texts come from the line can grow without bound.
        max(id.data.count, tokenID.data.count, subject.data.count, audience.data.count, keyID.data.count)
            > fullBytes
            || max(algorithm.data.count, role.data.count, detail.data.count, details.dataCount) > fullBytes
    }

    /// Adds the answer to input line `number` (`id`: the request's `id`, JSON text).
    package mutating func append(line number: Int, id idText: UnsafeBufferPointer<UInt8>?, result: VerificationResult) {
        count += 1
        line.append(Int64(number))
        if let idText {
            id.append { bytes in JSONWriter.forEachMinifiedRun(idText) { bytes.append(contentsOf: $0) } }
        } else {
            id.appendNull()
        }
        // Through optional chaining the token is read in place; `if let` would copy it.
        let byChain = result.isVerifiedByChain
        if result.withAnswerTexts({ appendValid($0, format: result.format, byChain: byChain) }) != nil { return }
        valid.append(false)
        reason.append(result.failures.first?.reason.rawValue ?? "")
        detail.append(result.failures.first?.detail ?? "")
        tokenID.appendNull()
        subject.appendNull()
        audience.appendNull()
        keyID.appendNull()
        algorithm.appendNull()
        role.appendNull()
        expiresAt.append(nil)
        appendFormat(result.format)
        if audit {
            reasons.append(result.failures.lazy.map(\.reason.rawValue))
            details.append(result.failures.lazy.map(\.detail))
        }
    }

    private mutating func appendValid(_ texts: AnswerTexts, format: TokenFormat?, byChain: Bool) {
        valid.append(true)
        reason.appendNull()
        detail.appendNull()
        tokenID.append(texts.tokenID)
        subject.append(texts.subject)
        if texts.audienceIsArray {
            audience.append { bytes in
                var writer = JSONWriter(reservingCapacity: 0)
                swap(&writer.bytes, &bytes)
                defer { swap(&writer.bytes, &bytes) }
                writer.raw("[")
                for index in 0..<texts.audienceCount {
                    if index > 0 { writer.raw(",") }
                    writer.string(utf8: texts.audience(index))
                }
                writer.raw("]")
            }
        } else {
            audience.append(texts.audience(0))
        }
        if byChain {
            keyID.appendNull()
        } else if let keyID = texts.keyID {
            self.keyID.append(keyID)
        } else {
            keyID.append("")
        }
        if let algorithm = texts.algorithm { self.algorithm.append(algorithm) } else { algorithm.append("") }
        expiresAt.append(texts.expiresAt)
        if let role = texts.role { self.role.append(role) } else { role.appendNull() }
        appendFormat(format)
        if audit {
            reasons.appendNull()
            details.appendNull()
        }
    }

    private mutating func appendFormat(_ tokenFormat: TokenFormat?) {
        if tokenFormat == .cwt { format.append("cwt") } else { format.appendNull() }
    }

    /// Appends the rows as one record batch message to `output` and empties the columns (their
    /// memory is kept for the next rows).
    package mutating func appendRecordBatch(to output: inout [UInt8]) {
        var body = ArrowBody()
        line.add(to: &body)
        id.add(to: &body)
        valid.add(to: &body)
        for column in [reason, detail, tokenID, subject, audience, keyID, algorithm] { column.add(to: &body) }
        expiresAt.add(to: &body)
        role.add(to: &body)
        format.add(to: &body)
        if audit {
            reasons.add(to: &body)
            details.add(to: &body)
        }
        ArrowIPC.appendRecordBatch(length: count, body: body, to: &output)
        removeAll()
    }

    private mutating func removeAll() {
        line.removeAll()
        id.removeAll()
        valid.removeAll()
        reason.removeAll()
        detail.removeAll()
        tokenID.removeAll()
        subject.removeAll()
        audience.removeAll()
        keyID.removeAll()
        algorithm.removeAll()
        expiresAt.removeAll()
        role.removeAll()
        format.removeAll()
        reasons.removeAll()
        details.removeAll()
        count = 0
    }
}

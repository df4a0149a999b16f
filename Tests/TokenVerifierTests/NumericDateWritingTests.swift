import Testing
import TokenFormats

@testable import TokenVerifier

/// The JSON writer (TokenFormats) writes a number as a NumericDate is formatted here.
@Suite struct NumericDateWritingTests {
    @Test func writesNumbersAsFormatNumericDateDoes() {
        let values: [Double] = [
            0, -0.0, 1, -1, 1.5, -1.5, 1_800_000_000, 1_800_000_000.25, 8.99e15, 9.0e15, -9.0e15,
            1e300, 0.1, 4_102_444_800,
        ]
        for value in values {
            var writer = JSONWriter()
            writer.number(value)
            #expect(writer.bytes == Array(formatNumericDate(value).utf8), "\(value)")
            var cursorWriter = JSONWriter()
            cursorWriter.append(upTo: 24) { $0.number(value) }
            #expect(cursorWriter.bytes == Array(formatNumericDate(value).utf8), "\(value)")
        }
    }
}

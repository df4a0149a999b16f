/// Strict JSON validation for tools (`sign`, `inspect`): the same rules as token parsing.
package enum JSONValidation {
    /// Why `bytes` is not one strict JSON object (RFC 8259, no duplicate members at any depth),
    /// or nil when it is.
    package static func problem(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            do throws(JSONError) {
                guard reader.peekKind() == .object else { return "not a JSON object" }
                try reader.skipValue()
                try reader.finish()
                return nil
            } catch {
                return error.description
            }
        }
    }
}

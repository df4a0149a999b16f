/// The JSON reading the key tools need (`keys import`, private JWKs), here so that the JSON
/// reader stays internal to TokenVerifier.
package enum JWKDocument {
    /// The JWKs of one JSON document: the entries of a JWKS, or the document itself.
    package static func members(of bytes: [UInt8]) throws(JSONError) -> [JWKMembers] {
        var entries: [JWKMembers] = []
        var sawKeys = false
        var single: JWKMembers? = nil
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var probe = JSONReader(buffer)
            try probe.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                guard name.equals("keys") else {
                    try reader.skipValue()
                    return
                }
                sawKeys = true
                guard reader.peekKind() == .array else { throw JSONError("\"keys\" must be an array", at: reader.position) }
                try reader.readArray { (reader: inout JSONReader) throws(JSONError) in entries.append(try JWKMembers(&reader)) }
            }
            try probe.finish()
            if !sawKeys {
                var reader = JSONReader(buffer)
                single = try JWKMembers(&reader)
            }
        }
        return single.map { [$0] } ?? entries
    }

    /// The string members of one JSON object (members of other types are skipped; duplicates refused).
    package static func stringMembers(of bytes: [UInt8]) throws(JSONError) -> [String: String] {
        var members: [String: String] = [:]
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var reader = JSONReader(buffer)
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                if reader.peekKind() == .string { members[name.string] = try reader.readString() } else { try reader.skipValue() }
            }
            try reader.finish()
        }
        return members
    }
}

import TokenVerifier

/// The members of the JWKs in one JSON document, as the key tools read them (`keys import`,
/// private JWKs), here so that the JSON reader stays internal to TokenVerifier: each JWK as its
/// string members and the names of its members of other types (duplicate members refused).
/// With `keySet`, the document is a JWKS (its `keys` entries) or else one JWK; without, it is
/// one JSON object.
package func readJWKs(
    _ bytes: [UInt8], keySet: Bool
) throws(JSONError) -> [(strings: [String: String], nonStrings: Set<String>)] {
    let members = keySet ? try JWKDocument.members(of: bytes) : [try JWKDocument.objectMembers(of: bytes)]
    return members.map { ($0.strings, $0.nonStrings) }
}

/// The JSON reading behind ``readJWKs(_:keySet:)``.
enum JWKDocument {
    /// The JWKs of one JSON document: the entries of a JWKS, or the document itself.
    static func members(of bytes: [UInt8]) throws(JSONError) -> [JWKMembers] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var probe = JSONReader(buffer)
            let entries = try JWKMembers.keySetEntries(&probe)
            try probe.finish()
            if let entries { return entries }
            var reader = JSONReader(buffer)
            return [try JWKMembers(&reader)]
        }
    }

    /// The members of one JSON object.
    static func objectMembers(of bytes: [UInt8]) throws(JSONError) -> JWKMembers {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var reader = JSONReader(buffer)
            guard reader.peekKind() == .object else { throw JSONError("expected an object", at: reader.position) }
            let members = try JWKMembers(&reader)
            try reader.finish()
            return members
        }
    }
}

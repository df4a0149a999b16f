extension VerificationResult {
    /// Appends the verdict members of this result's answer line (SPEC §6) and the closing brace
    /// and newline: `,"valid":true,"jti":…,"sub":…,"aud":…,"kid":…,"alg":…,"exp":…,"role":…}`
    /// for a valid token, written straight from the parsed token's bytes; `reason` and `detail`
    /// (with `audit`, also `reasons` and `details`) for an invalid one; `"format":"cwt"` last for a
    /// CWT that could be parsed (SPEC §2b). The caller writes the line's opening (`{"line":N,"id":…`).
    package func appendAnswerMembers(audit: Bool, to writer: inout JSONWriter) {
        guard failures.isEmpty, let token = parsed else {
            return appendInvalidMembers(audit: audit, to: &writer)
        }
        // Each text takes at most six bytes a byte (escaped) and its quotes and comma; the
        // member names, the brackets, `exp` and the end take less than 160.
        var bound = 160
        func count(_ text: ParsedToken.Text?) { if let text { bound += 6 * text.count + 3 } }
        count(token.tokenID)
        count(token.subject)
        for index in 0..<Int(token.audience.count) { count(token.item(token.audience, index)) }
        count(token.keyID)
        count(token.algorithm)
        count(token.role)
        token.storage.withUnsafeBufferPointer { storage in
            writer.append(upTo: bound) { out in
                func string(_ text: ParsedToken.Text) {
                    out.string(utf8: UnsafeBufferPointer(rebasing: storage[Int(text.start)..<Int(text.end)]))
                }
                out.raw(",\"valid\":true,\"jti\":")
                string(token.tokenID)
                out.raw(",\"sub\":")
                string(token.subject)
                out.raw(",\"aud\":")
                if token.audienceIsArray {
                    out.raw("[")
                    for index in 0..<Int(token.audience.count) {
                        if index > 0 { out.raw(",") }
                        string(token.item(token.audience, index))
                    }
                    out.raw("]")
                } else {
                    string(token.item(token.audience, 0))
                }
                out.raw(",\"kid\":")
                if let keyID = token.keyID { string(keyID) } else { out.raw("\"\"") }
                out.raw(",\"alg\":")
                if let algorithm = token.algorithm { string(algorithm) } else { out.raw("\"\"") }
                out.raw(",\"exp\":")
                out.number(token.expiresAt)
                if let role = token.role {
                    out.raw(",\"role\":")
                    string(role)
                }
                out.raw(token.format == .cwt ? ",\"format\":\"cwt\"}\n" : "}\n")
            }
        }
    }

    private func appendInvalidMembers(audit: Bool, to writer: inout JSONWriter) {
        writer.raw(",\"valid\":false,\"reason\":")
        writer.string(failures.first?.reason.rawValue ?? "")
        writer.raw(",\"detail\":")
        writer.string(failures.first?.detail ?? "")
        if audit {
            writer.raw(",\"reasons\":")
            writer.strings(failures.map(\.reason.rawValue))
            writer.raw(",\"details\":")
            writer.strings(failures.map(\.detail))
        }
        writer.raw(parsed?.format == .cwt ? ",\"format\":\"cwt\"}\n" : "}\n")
    }
}

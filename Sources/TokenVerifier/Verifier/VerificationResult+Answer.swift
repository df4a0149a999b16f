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
        func string(_ text: ParsedToken.Text) {
            token.withBytes(text) { writer.string(utf8: $0) }
        }
        writer.raw(",\"valid\":true,\"jti\":")
        string(token.tokenID)
        writer.raw(",\"sub\":")
        string(token.subject)
        writer.raw(",\"aud\":")
        if token.audienceIsArray {
            writer.raw("[")
            for index in 0..<Int(token.audience.count) {
                if index > 0 { writer.raw(",") }
                string(token.item(token.audience, index))
            }
            writer.raw("]")
        } else {
            string(token.item(token.audience, 0))
        }
        writer.raw(",\"kid\":")
        if let keyID = token.keyID { string(keyID) } else { writer.raw("\"\"") }
        writer.raw(",\"alg\":")
        if let algorithm = token.algorithm { string(algorithm) } else { writer.raw("\"\"") }
        writer.raw(",\"exp\":")
        writer.number(token.expiresAt)
        if let role = token.role {
            writer.raw(",\"role\":")
            string(role)
        }
        writer.raw(token.format == .cwt ? ",\"format\":\"cwt\"}\n" : "}\n")
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

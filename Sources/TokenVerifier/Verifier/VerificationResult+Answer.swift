extension VerificationResult {
    /// Appends the verdict members of this result's answer line (spec §6) and the closing brace
    /// and newline: `,"valid":true,"jti":…,"sub":…,"aud":…,"kid":…,"alg":…,"exp":…,"role":…}`
    /// for a valid token, written straight from the parsed token's bytes; `reason` and `detail`
    /// (with `audit`, also `reasons` and `details`) for an invalid one; `"format":"cwt"` last for a
    /// CWT that could be parsed (spec §2b). The caller writes the line's opening (`{"line":N,"id":…`).
    package func appendAnswerMembers(audit: Bool, to writer: inout JSONWriter) {
        appendAnswer(audit: audit, openingBound: 0, to: &writer) { _ in }
    }

    /// Appends the whole answer line: `opening` writes its start (`{"line":N,"id":…`, at most
    /// `openingBound` bytes), then the verdict's members as ``appendAnswerMembers(audit:to:)``
    /// writes them. A valid verdict's line is written through one cursor, in one append.
    package func appendAnswer(
        audit: Bool, openingBound: Int, to writer: inout JSONWriter, opening: (inout ByteCursor) -> Void
    ) {
        guard failures.isEmpty, parsed != nil else {
            writer.append(upTo: openingBound, opening)
            return appendInvalidMembers(audit: audit, to: &writer)
        }
        // Through optional chaining the token is read in place; `if let` would copy it.
        parsed?.appendValidAnswer(openingBound: openingBound, opening: opening, to: &writer)
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

extension ParsedToken {
    /// A valid verdict's answer line (`VerificationResult.appendAnswer`): what `opening` writes
    /// (at most `openingBound` bytes), then the members written from this token's bytes.
    func appendValidAnswer(
        openingBound: Int, opening: (inout ByteCursor) -> Void, to writer: inout JSONWriter
    ) {
        // Each text takes at most six bytes a byte (escaped) and its quotes and comma; the
        // member names, the brackets, `exp` and the end take less than 160.
        var bound = 160 + openingBound
        func count(_ text: ParsedToken.Text?) { if let text { bound += 6 * text.count + 3 } }
        count(tokenID)
        count(subject)
        for index in 0..<Int(audience.count) { count(item(audience, index)) }
        count(keyID)
        count(algorithm)
        count(role)
        storage.withUnsafeBufferPointer { storage in
            writer.append(upTo: bound) { out in
                opening(&out)
                func string(_ text: ParsedToken.Text) {
                    out.string(utf8: UnsafeBufferPointer(rebasing: storage[Int(text.start)..<Int(text.end)]))
                }
                out.raw(",\"valid\":true,\"jti\":")
                string(tokenID)
                out.raw(",\"sub\":")
                string(subject)
                out.raw(",\"aud\":")
                if audienceIsArray {
                    out.raw("[")
                    for index in 0..<Int(audience.count) {
                        if index > 0 { out.raw(",") }
                        string(item(audience, index))
                    }
                    out.raw("]")
                } else {
                    string(item(audience, 0))
                }
                out.raw(",\"kid\":")
                if let keyID { string(keyID) } else { out.raw("\"\"") }
                out.raw(",\"alg\":")
                if let algorithm { string(algorithm) } else { out.raw("\"\"") }
                out.raw(",\"exp\":")
                out.number(expiresAt)
                if let role {
                    out.raw(",\"role\":")
                    string(role)
                }
                out.raw(format == .cwt ? ",\"format\":\"cwt\"}\n" : "}\n")
            }
        }
    }
}

import TokenFormats
import TokenVerifier

extension JSONWriter {
    /// Appends the answer line of spec §6 for input line `line` and its newline, in one pass:
    /// `{"line":N,"id":…` (`id`: the request's JSON text, its white space dropped), then
    /// `"valid":true,"jti":…,"sub":…,"aud":…,"kid":…,"alg":…,"exp":…,"role":…` written from the
    /// verdict's texts (``VerificationResult/withAnswerTexts(_:)``) for a valid token (with
    /// `"x5t#S256":…`, the leaf's thumbprint, in the place of `kid` for a token its chain
    /// verified, spec §3b), `reason`
    /// and `detail` (with `audit`, also `reasons` and `details`) for an invalid one;
    /// `"format":"cwt"` last for a CWT that could be parsed (spec §2b).
    mutating func appendAnswer(
        line: Int, id: UnsafeBufferPointer<UInt8>?, result: VerificationResult, audit: Bool
    ) {
        let openingBound = 40 + (id?.count ?? 0)
        let isCWT = result.format == .cwt
        let written = result.withAnswerTexts { texts in
            guard result.isVerifiedByChain, var leaf = result.chainLeafThumbprint else {
                return appendValidAnswer(texts, isCWT: isCWT, openingBound: openingBound) { out in
                    Self.writeOpening(line: line, id: id, to: &out)
                }
            }
            return leaf.withUTF8 { leaf in
                appendValidAnswer(texts, chainLeaf: leaf, isCWT: isCWT, openingBound: openingBound) { out in
                    Self.writeOpening(line: line, id: id, to: &out)
                }
            }
        }
        guard written == nil else { return }
        append(upTo: openingBound) { Self.writeOpening(line: line, id: id, to: &$0) }
        appendInvalidMembers(result, audit: audit)
    }

    @inline(__always)
    static func writeOpening(line: Int, id: UnsafeBufferPointer<UInt8>?, to out: inout ByteCursor) {
        out.raw("{\"line\":")
        out.integer(Int64(line))
        if let id {
            out.raw(",\"id\":")
            out.minified(id)
        }
    }

    /// A valid verdict's answer line: what `opening` writes (at most `openingBound` bytes), then
    /// the members written from `texts` (`"x5t#S256"`, the UTF-8 `chainLeaf`, in the place of
    /// `kid` when the token's chain verified it, and `"format":"cwt"` when `isCWT`), through one
    /// cursor, in one append.
    @inline(__always)
    mutating func appendValidAnswer(
        _ texts: AnswerTexts, chainLeaf: UnsafeBufferPointer<UInt8>? = nil, isCWT: Bool, openingBound: Int,
        opening: (inout ByteCursor) -> Void
    ) {
        // Each text takes at most six bytes a byte (escaped) and its quotes and comma; the
        // member names, the brackets, `exp` and the end take less than 160; a thumbprint is 43
        // base64url characters, never escaped.
        let sizes = texts.textSizes
        let bound = 160 + openingBound + 6 * sizes.bytes + 3 * sizes.count + (chainLeaf?.count ?? 0)
        append(upTo: bound) { out in
            opening(&out)
            out.raw(",\"valid\":true,\"jti\":")
            out.string(utf8: texts.tokenID)
            out.raw(",\"sub\":")
            out.string(utf8: texts.subject)
            out.raw(",\"aud\":")
            if texts.audienceIsArray {
                out.raw("[")
                for index in 0..<texts.audienceCount {
                    if index > 0 { out.raw(",") }
                    out.string(utf8: texts.audience(index))
                }
                out.raw("]")
            } else {
                out.string(utf8: texts.audience(0))
            }
            if let chainLeaf {
                out.raw(",\"x5t#S256\":")
                out.string(utf8: chainLeaf)
            } else {
                out.raw(",\"kid\":")
                if let keyID = texts.keyID { out.string(utf8: keyID) } else { out.raw("\"\"") }
            }
            out.raw(",\"alg\":")
            if let algorithm = texts.algorithm { out.string(utf8: algorithm) } else { out.raw("\"\"") }
            out.raw(",\"exp\":")
            out.number(texts.expiresAt)
            if let role = texts.role {
                out.raw(",\"role\":")
                out.string(utf8: role)
            }
            out.raw(isCWT ? ",\"format\":\"cwt\"}\n" : "}\n")
        }
    }

    /// An invalid verdict's members and the line's end.
    mutating func appendInvalidMembers(_ result: VerificationResult, audit: Bool) {
        raw(",\"valid\":false,\"reason\":")
        string(result.failures.first?.reason.rawValue ?? "")
        raw(",\"detail\":")
        string(result.failures.first?.detail ?? "")
        if audit {
            raw(",\"reasons\":")
            strings(result.failures.map(\.reason.rawValue))
            raw(",\"details\":")
            strings(result.failures.map(\.detail))
        }
        raw(result.format == .cwt ? ",\"format\":\"cwt\"}\n" : "}\n")
    }
}

extension AnswerTexts {
    /// How many texts the view holds (`kid`, `alg` and `role` when present, each `aud` item) and
    /// their bytes in all: what an answer line's buffer is sized from.
    @inline(__always)
    fileprivate var textSizes: (count: Int, bytes: Int) {
        var count = 2 + audienceCount
        var bytes = tokenID.count + subject.count
        for index in 0..<audienceCount { bytes += audience(index).count }
        func add(_ text: UnsafeBufferPointer<UInt8>?) {
            guard let text else { return }
            count += 1
            bytes += text.count
        }
        add(keyID)
        add(algorithm)
        add(role)
        return (count, bytes)
    }
}

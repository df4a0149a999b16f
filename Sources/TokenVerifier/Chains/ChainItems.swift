/// The certificates of a token's chain (spec §3b), decoded from the header value as written: a
/// JWS's `x5c` (a non-empty JSON array of standard base64 DER, RFC 7515 §4.1.6) or a CWT's
/// `x5chain` (one bstr, or a non-empty array of them, RFC 9360), leaf first. Decoded only when a
/// chain is not in the chain cache.
package enum ChainItems {
    /// The most certificates a token's chain may hold.
    static let limit = 8

    /// The DER certificates of `value` (`x5c` for JWS, `x5chain` for CWT), or why it holds none.
    static func decode(_ value: UnsafeBufferPointer<UInt8>, format: TokenFormat) -> Result<[[UInt8]], ChainSyntaxError>
    {
        let decoded = format == .jws ? decodeJSON(value) : decodeCBOR(value)
        if case .success(let items) = decoded, items.count > limit {
            return .failure(
                ChainSyntaxError("the chain holds \(items.count) certificates; at most \(limit) are accepted"))
        }
        return decoded
    }

    /// `x5c`: a non-empty array of strings, each canonical standard base64 (padded).
    private static func decodeJSON(_ value: UnsafeBufferPointer<UInt8>) -> Result<[[UInt8]], ChainSyntaxError> {
        var reader = JSONReader(value)
        var items: [[UInt8]] = []
        var bad: Int?
        do throws(JSONError) {
            try reader.readStringArray {
                (reader: inout JSONReader, content: Range<Int>, hasEscapes: Bool) throws(JSONError) in
                let der = reader.withStringBytes(content, hasEscapes: hasEscapes) { StandardBase64.decode($0) }
                if let der, !der.isEmpty {
                    items.append(der)
                } else {
                    if bad == nil { bad = items.count }
                    items.append([])
                }
            }
            try reader.finish()
        } catch {
            return .failure(ChainSyntaxError("x5c must be a non-empty array of base64 DER certificates"))
        }
        if let bad {
            return .failure(ChainSyntaxError("x5c's certificate \(bad + 1) is not canonical standard base64"))
        }
        return .success(items)
    }

    /// `x5chain`: one bstr, or a non-empty array of bstr.
    private static func decodeCBOR(_ value: UnsafeBufferPointer<UInt8>) -> Result<[[UInt8]], ChainSyntaxError> {
        var reader = CBORReader(value)
        var items: [[UInt8]] = []
        do throws(CBORError) {
            switch reader.peekMajor() {
            case .bytes?:
                items.append(Array(value[try reader.readByteString()]))
            case .array?:
                let count = try reader.readArrayCount()
                guard count > 0 else { throw CBORError("empty", at: 0) }
                for _ in 0..<count {
                    guard reader.peekMajor() == .bytes else { throw CBORError("not a bstr", at: 0) }
                    items.append(Array(value[try reader.readByteString()]))
                }
            default:
                throw CBORError("not a bstr or an array", at: 0)
            }
            try reader.finish()
        } catch {
            return .failure(ChainSyntaxError("x5chain (33) must be a bstr or a non-empty array of bstr"))
        }
        if let empty = items.firstIndex(where: \.isEmpty) {
            return .failure(ChainSyntaxError("x5chain's certificate \(empty + 1) is empty"))
        }
        return .success(items)
    }
}

/// Why a token's chain holds no certificates to validate (`untrusted_chain`).
public struct ChainSyntaxError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Standard base64 (RFC 4648 §4, with padding), canonical: the length a multiple of four, at most
/// two `=` at the end, no other character outside the alphabet, unused bits zero.
enum StandardBase64 {
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0, !text.isEmpty else { return nil }
        var padding = 0
        if text[text.count - 1] == UInt8(ascii: "=") { padding += 1 }
        if text.count >= 2, text[text.count - 2] == UInt8(ascii: "=") { padding += 1 }
        let body = text.count - padding
        var translated = [UInt8](repeating: 0, count: body)
        for index in 0..<body {
            switch text[index] {
            case UInt8(ascii: "+"): translated[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): translated[index] = UInt8(ascii: "_")
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="): return nil
            case let byte: translated[index] = byte
            }
        }
        return translated.withUnsafeBufferPointer { Base64URL.decode($0) }
    }
}

extension ChainItems {
    /// The DER of each certificate of the chain `token` carries, leaf first, as written (nothing
    /// validated), or why the chain cannot be read; nil when the token does not parse or carries no
    /// chain. What `inspect` shows (TokenTools' ChainInspection).
    package static func certificates(ofToken token: [UInt8]) -> Result<[[UInt8]], ChainSyntaxError>? {
        let parsed = token.withUnsafeBufferPointer { ParsedToken.parse($0) }
        guard case .success(let parsed) = parsed, let chain = parsed.chain else { return nil }
        return parsed.withBytes(chain) { decode($0, format: parsed.format) }
    }
}

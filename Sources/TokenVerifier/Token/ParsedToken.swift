#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A compact token split, decoded and type-checked into one buffer: the hot path's form of a
/// token. Every string is a range of ``storage`` (no `String` or array per claim), so parsing
/// allocates once and a copy costs one retain. ``TokenHeader`` and ``TokenClaims`` are made from
/// it only when a caller asks for them.
///
/// `storage` holds, in order: the decoded signature, the header JSON, the claims JSON, the
/// unescaped text of strings written with escapes, and the table of the `aud`, `ch` and `cmd`
/// items (a start and an end offset each, as two little-endian `UInt32`). A CWT's storage holds
/// the decoded signature, the Sig_structure (which holds the protected header and the claims),
/// the texts made while parsing, and the item table.
@usableFromInline package struct ParsedToken: Sendable {
    /// Where a string lies in ``storage``.
    @usableFromInline package struct Text: Equatable, Sendable {
        @usableFromInline package var start: UInt32
        @usableFromInline package var end: UInt32
        @usableFromInline package var count: Int { Int(end &- start) }

        @usableFromInline package init(start: UInt32, end: UInt32) {
            self.start = start
            self.end = end
        }
    }

    /// A list of strings: `count` entries of the item table from entry `first`.
    @usableFromInline package struct List: Sendable {
        @usableFromInline package var first: UInt32
        @usableFromInline package var count: UInt32
    }

    @usableFromInline package private(set) var storage: [UInt8]
    /// Offset in ``storage`` of the item table.
    @usableFromInline var tableStart: UInt32

    /// The decoded signature segment (any length; the signature check judges it).
    @usableFromInline package var signature: Text
    /// Length in bytes of the signing input `header.payload` at the start of the token.
    @usableFromInline package var signingInputLength: Int

    // The header (members are kept even when wrong, so that the checks can name the problem).
    @usableFromInline package var algorithm: Text?
    @usableFromInline package var keyID: Text?
    @usableFromInline package var type: Text?
    @usableFromInline package var hasAlgorithmMember = false
    @usableFromInline package var hasKeyIDMember = false
    @usableFromInline package var hasTypeMember = false
    @usableFromInline package var hasCritical = false
    /// The algorithm, when `alg` names one tokenverify supports.
    @usableFromInline package var supportedAlgorithm: SignatureAlgorithm?

    // The claims.
    @usableFromInline package var issuer: Text
    @usableFromInline package var subject: Text
    @usableFromInline package var tokenID: Text
    @usableFromInline package var role: Text?
    @usableFromInline package var audience: List
    @usableFromInline package var audienceIsArray: Bool
    @usableFromInline package var channels: List
    @usableFromInline package var commands: List
    @usableFromInline package var expiresAt: Double
    @usableFromInline package var notBefore: Double?
    @usableFromInline package var issuedAt: Double?
    @usableFromInline package var environment: Environment?

    // The format (SPEC §2b).
    /// JWS or CWT.
    @usableFromInline package var format: TokenFormat = .jws
    /// Where the signed message lies in ``storage``: a CWT's Sig_structure. Nil for JWS, whose
    /// signed message is the token's own first `signingInputLength` bytes.
    @usableFromInline var signedMessage: Text? = nil
    /// A CWT header problem found while parsing (`bad_header`), such as `kid` not a bstr.
    @usableFromInline var headerProblem: String? = nil

    // MARK: - Reading

    /// Calls `body` with the bytes of `text`.
    @inline(__always)
    @inlinable
    package func withBytes<R>(_ text: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(text.start)..<Int(text.end)])) }
    }

    /// `text` as a String.
    @inlinable
    package func string(_ text: Text) -> String {
        withBytes(text) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `text` holds exactly `bytes`.
    @inline(__always)
    @inlinable
    package func equals(_ text: Text, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        withBytes(text) { bytesEqual($0, bytes) }
    }

    /// Whether `text` holds exactly the UTF-8 of `string`.
    @inlinable
    package func equals(_ text: Text, _ string: String) -> Bool {
        withUTF8(of: string) { equals(text, $0) }
    }

    /// The item at `index` of `list`.
    @inline(__always)
    @inlinable
    package func item(_ list: List, _ index: Int) -> Text {
        storage.withUnsafeBytes { raw in
            let offset = Int(tableStart) + (Int(list.first) + index) * 8
            return Text(start: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                        end: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
        }
    }

    /// Whether one item of `list` holds exactly `bytes`.
    @inlinable
    package func contains(_ list: List, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<Int(list.count) where equals(item(list, index), bytes) { return true }
        return false
    }

    /// The items of `list` as Strings.
    @inlinable
    package func strings(_ list: List) -> [String] {
        (0..<Int(list.count)).map { string(item(list, $0)) }
    }
}

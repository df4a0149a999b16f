#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A compact token split, decoded and type-checked into one buffer: the hot path's form of a
/// token. Every string is a range of ``storage`` (no `String` or array per claim). Immutable and
/// shared: the checks, the verdict and the parse cache hold one reference, so handing a parsed
/// token on costs a retain, never a copy of its fields. ``TokenHeader`` and ``TokenClaims`` are made from
/// it only when a caller asks for them.
///
/// `storage` holds, in order: the decoded signature, the header JSON, the claims JSON, the
/// unescaped text of strings written with escapes, and the table of the `aud`, `ch` and `cmd`
/// items (a start and an end offset each, as two little-endian `UInt32`). A CWT's storage holds
/// the decoded signature, the Sig_structure (which holds the protected header and the claims),
/// the texts made while parsing, and the item table.
@usableFromInline final class ParsedToken: Sendable {
    /// Where a string lies in ``storage``.
    @usableFromInline struct Text: Equatable, Sendable {
        @usableFromInline var start: UInt32
        @usableFromInline var end: UInt32
        @usableFromInline var count: Int { Int(end &- start) }

        @usableFromInline init(start: UInt32, end: UInt32) {
            self.start = start
            self.end = end
        }
    }

    /// A list of strings: `count` entries of the item table from entry `first`.
    @usableFromInline struct List: Sendable {
        @usableFromInline var first: UInt32
        @usableFromInline var count: UInt32
    }

    @usableFromInline let storage: [UInt8]
    /// Offset in ``storage`` of the item table.
    @usableFromInline let tableStart: UInt32

    /// The decoded signature segment (any length; the signature check judges it).
    @usableFromInline let signature: Text
    /// Length in bytes of the signing input `header.payload` at the start of the token.
    @usableFromInline let signingInputLength: Int

    // The header (members are kept even when wrong, so that the checks can name the problem).
    @usableFromInline let algorithm: Text?
    @usableFromInline let keyID: Text?
    @usableFromInline let type: Text?
    @usableFromInline let hasAlgorithmMember: Bool
    @usableFromInline let hasKeyIDMember: Bool
    @usableFromInline let hasTypeMember: Bool
    @usableFromInline let hasCritical: Bool
    /// The algorithm, when `alg` names one tokenverify supports.
    @usableFromInline let supportedAlgorithm: SignatureAlgorithm?

    // The claims.
    @usableFromInline let issuer: Text
    @usableFromInline let subject: Text
    @usableFromInline let tokenID: Text
    @usableFromInline let role: Text?
    @usableFromInline let audience: List
    @usableFromInline let audienceIsArray: Bool
    @usableFromInline let channels: List
    @usableFromInline let commands: List
    @usableFromInline let expiresAt: Double
    @usableFromInline let notBefore: Double?
    @usableFromInline let issuedAt: Double?
    @usableFromInline let environment: Environment?

    // The format (spec §2b).
    /// JWS or CWT.
    @usableFromInline let format: TokenFormat
    /// Where the signed message lies in ``storage``: a CWT's Sig_structure. Nil for JWS, whose
    /// signed message is the token's own first `signingInputLength` bytes.
    @usableFromInline let signedMessage: Text?
    /// A CWT header problem found while parsing (`bad_header`), such as `kid` not a bstr.
    @usableFromInline let headerProblem: String?
    /// The token's entry in a status list (spec §4c: `status.status_list`, CWT claim 65535), if it names one.
    @usableFromInline let status: StatusReference?
    /// The certificate chain the header carries (spec §3b), as written: a JWS's `x5c` JSON value,
    /// a CWT's `x5chain` (33) CBOR item. Read only where trust anchors are configured.
    @usableFromInline let chain: Text?
    /// A CWT's `x5chain` is in both headers: `bad_header` where trust anchors are configured.
    @usableFromInline let chainInBothHeaders: Bool

    /// A token as parsed (every text a range of `storage`).
    init(
        storage: [UInt8], tableStart: UInt32, signature: Text, signingInputLength: Int,
        algorithm: Text?, keyID: Text?, type: Text?,
        hasAlgorithmMember: Bool = false, hasKeyIDMember: Bool = false, hasTypeMember: Bool = false,
        hasCritical: Bool = false, supportedAlgorithm: SignatureAlgorithm?,
        issuer: Text, subject: Text, tokenID: Text, role: Text?,
        audience: List, audienceIsArray: Bool, channels: List, commands: List,
        expiresAt: Double, notBefore: Double?, issuedAt: Double?, environment: Environment?,
        format: TokenFormat = .jws, signedMessage: Text? = nil, headerProblem: String? = nil,
        status: StatusReference? = nil, chain: Text? = nil, chainInBothHeaders: Bool = false
    ) {
        self.storage = storage
        self.tableStart = tableStart
        self.signature = signature
        self.signingInputLength = signingInputLength
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.hasAlgorithmMember = hasAlgorithmMember
        self.hasKeyIDMember = hasKeyIDMember
        self.hasTypeMember = hasTypeMember
        self.hasCritical = hasCritical
        self.supportedAlgorithm = supportedAlgorithm
        self.issuer = issuer
        self.subject = subject
        self.tokenID = tokenID
        self.role = role
        self.audience = audience
        self.audienceIsArray = audienceIsArray
        self.channels = channels
        self.commands = commands
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.environment = environment
        self.format = format
        self.signedMessage = signedMessage
        self.headerProblem = headerProblem
        self.status = status
        self.chain = chain
        self.chainInBothHeaders = chainInBothHeaders
    }

    /// Where a token's status is kept: entry `index` of the status list at `uri`.
    @usableFromInline struct StatusReference: Sendable {
        @usableFromInline var index: UInt64
        @usableFromInline var uri: Text

        @usableFromInline init(index: UInt64, uri: Text) {
            self.index = index
            self.uri = uri
        }
    }

    // MARK: - Reading

    /// Calls `body` with the bytes of `text`.
    @inline(__always)
    @inlinable
    func withBytes<R>(_ text: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(text.start)..<Int(text.end)])) }
    }

    /// `text` as a String.
    @inlinable
    func string(_ text: Text) -> String {
        withBytes(text) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `text` holds exactly `bytes`.
    @inline(__always)
    @inlinable
    func equals(_ text: Text, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        text.count == bytes.count && withBytes(text) { bytesEqual($0, bytes) }
    }

    /// Whether `text` holds exactly the UTF-8 of `string`.
    @inlinable
    func equals(_ text: Text, _ string: String) -> Bool {
        withUTF8(of: string) { equals(text, $0) }
    }

    /// The item at `index` of `list`.
    @inline(__always)
    @inlinable
    func item(_ list: List, _ index: Int) -> Text {
        storage.withUnsafeBytes { raw in
            let offset = Int(tableStart) + (Int(list.first) + index) * 8
            return Text(
                start: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
                end: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
        }
    }

    /// Whether one item of `list` holds exactly `bytes`.
    @inlinable
    func contains(_ list: List, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<Int(list.count) where equals(item(list, index), bytes) { return true }
        return false
    }

    /// The items of `list` as Strings.
    @inlinable
    func strings(_ list: List) -> [String] {
        (0..<Int(list.count)).map { string(item(list, $0)) }
    }
}

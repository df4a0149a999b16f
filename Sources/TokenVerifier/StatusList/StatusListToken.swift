#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A verified Status List Token (spec §4c; draft-ietf-oauth-status-list §5): the list of URI
/// ``uri`` issued at ``issuedAt``, one entry of ``bits`` bits per token, inflated and held in
/// memory, with what it takes to verify its signature again when the key set changes.
///
/// ```swift
/// let list = try StatusListToken.load(bytes: fileBytes, source: "sl-7.jwt", keys: keys)
/// list.status(at: 1993)   // 0x01: INVALID
/// ```
public struct StatusListToken: Sendable {
    /// The list's URI (`sub`; CWT 2): the `uri` of the tokens that refer to it.
    public let uri: String
    /// When the list was issued (`iat`; CWT 6).
    public let issuedAt: Double
    /// When it stops answering (`exp`; CWT 4), if ever.
    public let expiresAt: Double?
    /// How long it may be cached before it is fetched again (`ttl`; CWT 65534), in seconds.
    public let timeToLive: Double?
    /// The issuer (`iss`; CWT 1), if named.
    public let issuer: String?
    /// Bits per entry: 1, 2, 4 or 8.
    public let bits: Int
    /// The `kid` of the key that signed it; for a list checked by its chain (spec §3b), the leaf
    /// certificate's `x5t#S256`.
    public let keyID: String
    /// JWS or CWT.
    public let format: TokenFormat
    /// Where it came from (a file name), for messages.
    public let source: String
    let entries: StatusEntries
    let signed: SignedStatusList

    /// The number of entries.
    public var count: Int { entries.count }

    /// Bytes held for the entries (the inflated list).
    public var entryBytes: Int { entries.bytes.count }

    /// Bytes held to verify the signature again (the signed message and the signature).
    public var signedBytes: Int { signed.message.count + signed.signature.count }

    /// Whether its header carries a certificate chain (`x5c`, `x5chain`).
    public var hasChain: Bool { signed.chain != nil }

    /// Whether it was checked by its chain when loaded (trust anchors given), not by `kid`.
    public var isVerifiedByChain: Bool { signed.anchors != nil }

    /// The status of entry `index` (0x00 VALID, 0x01 INVALID, 0x02 SUSPENDED, …), or nil beyond
    /// the list's entries.
    @inline(__always)
    public func status(at index: UInt64) -> UInt8? {
        entries.value(at: index)
    }

    /// The entries that are not 0x00, in index order (for `inspect`).
    package func nonZeroEntries() -> [(index: Int, status: UInt8)] {
        entries.nonZero()
    }

    /// Reads, verifies and inflates a Status List Token held in `bytes`: a compact JWS (header
    /// `typ` `statuslist+jwt`), or a CWT (COSE_Sign1 under tag 18, protected `typ`
    /// `application/statuslist+cwt`) as base64url text or raw CBOR. Verified against `keys` like a
    /// token (kid, alg, key type, the key's `env` against `options.environment`, the key's `iss`
    /// against the list's, the signature); `lst` inflated within `maxInflatedBytes`. With
    /// `anchors`, a list that carries a chain (`x5c`, `x5chain`) is checked by it instead (spec
    /// §3b): validated as of the list's `iat`, its `iss` required and a name of the leaf, the
    /// leaf's key fitting `alg`, the anchor's `env` against `options.environment`, the signature.
    public static func load(
        bytes: [UInt8], source: String, keys: KeySet, anchors: TrustAnchors? = nil,
        options: VerificationOptions = VerificationOptions(), maxInflatedBytes: Int = 256 << 20
    ) throws(StatusListError) -> StatusListToken {
        let parsed = try UnverifiedStatusList.parse(bytes, source: source)
        let (key, chainKey, checkedUnder) = try parsed.verify(
            keys: keys, anchors: anchors, options: options, source: source)
        let entries: [UInt8]
        do {
            entries = try parsed.compressedList.withUnsafeBufferPointer { (compressed) throws(Zlib.Failure) in
                try Zlib.inflate(compressed, limit: maxInflatedBytes)
            }
        } catch {
            throw StatusListError(source: source, message: "lst: \(error.description)")
        }
        return StatusListToken(
            uri: parsed.uri, issuedAt: parsed.issuedAt, expiresAt: parsed.expiresAt, timeToLive: parsed.timeToLive,
            issuer: parsed.issuer, bits: parsed.bits,
            keyID: checkedUnder == nil ? parsed.keyID ?? key.keyID : key.keyID,
            format: parsed.format, source: source, entries: StatusEntries(bytes: entries, bits: parsed.bits),
            signed: SignedStatusList(parsed, key: key, chainKey: chainKey, anchors: checkedUnder))
    }

    /// The list's issuer as of its load (spec §4c): the `iss` of the key that verified it, or where
    /// that key names none, the list's own `iss`; for a list checked by its chain, its own `iss`.
    /// The issuer it answers for, and shadows for while out of force.
    public var signerIssuer: String? { signed.keyIssuer }

    /// The environment of the signer as of its load (its key's `env`, or its anchor's tag).
    public var signerEnvironment: Environment? { signed.keyEnvironment }

    /// SHA-256 of `bits`, `exp` and the entries: equal for copies of one generation (as
    /// `hasSameEntries(as:)` compares them), so that a generation can be told from another with
    /// its `iat` after its list is gone: by the verifier's floors in one process, and by `fetch`'s
    /// state file across runs (as lowercase hex, ``entriesDigestHex``).
    public var entriesDigest: [UInt8] {
        var header = Array("bits \(bits) exp \(expiresAt.map { "\($0)" } ?? "none")\n".utf8)
        header += entries.digest
        return sha256(header)
    }

    /// ``entriesDigest`` as 64 lowercase hex digits.
    public var entriesDigestHex: String { hexadecimal(entriesDigest) }

    /// Whether `other` holds the same entries (and bits and `exp`): a copy of the same generation.
    package func hasSameEntries(as other: StatusListToken) -> Bool {
        bits == other.bits && expiresAt == other.expiresAt
            && (entries === other.entries || entries.bytes == other.entries.bytes)
    }
}

/// A Status List Token that cannot be used: start-up stops with this message, a reload keeps the
/// file's previous generation.
public struct StatusListError: Error, CustomStringConvertible, Sendable {
    /// The file (or URL) it came from.
    public var source: String
    /// What is wrong, in one sentence.
    public var message: String

    public init(source: String, message: String) {
        self.source = source
        self.message = message
    }

    public var description: String { "\(source): \(message)" }
}

/// A list's entries: `bits` bits each, least significant bits first (draft §4.1).
final class StatusEntries: Sendable {
    let bytes: [UInt8]
    let bits: Int
    let count: Int
    private let mask: UInt8
    private let shift: Int  // log2(bits)

    /// SHA-256 of the entries' bytes (made once, when the list is loaded).
    let digest: [UInt8]

    init(bytes: [UInt8], bits: Int) {
        self.bytes = bytes
        self.bits = bits
        self.count = bytes.count * 8 / bits
        self.mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        self.shift = bits.trailingZeroBitCount
        self.digest = sha256(bytes)
    }

    @inline(__always)
    func value(at index: UInt64) -> UInt8? {
        guard index < UInt64(count) else { return nil }
        let bit = Int(index) << shift
        return (bytes[bit >> 3] >> UInt8(bit & 7)) & mask
    }

    func nonZero() -> [(index: Int, status: UInt8)] {
        var found: [(index: Int, status: UInt8)] = []
        for (offset, byte) in bytes.enumerated() where byte != 0 {
            let perByte = 8 / bits
            for slot in 0..<perByte {
                let value = (byte >> UInt8(slot * bits)) & mask
                if value != 0 { found.append((offset * perByte + slot, value)) }
            }
        }
        return found
    }
}

/// What a list's signature covers, kept to verify it again after a key rotation.
final class SignedStatusList: Sendable {
    let algorithm: SignatureAlgorithm
    let message: [UInt8]
    let signature: [UInt8]
    /// The header's `kid` and chain (as written), if any.
    let keyID: String?
    let chain: [UInt8]?
    /// The key the list was verified with at load.
    let keyType: KeyType
    let keyMaterial: [UInt8]
    /// The issuer it answered for at load: that key's `iss`, else the list's own (for a chain,
    /// the list's).
    let keyIssuer: String?
    /// The signer's environment at load: its key's `env`, or its anchor's tag.
    let keyEnvironment: Environment?
    /// The anchors its chain was checked under at load (nil: checked by `kid`).
    let anchors: TrustAnchors?
    /// The validated chain at load, under ``anchors`` (its certificates name the signer in a
    /// revocation list).
    let chainKey: ChainKey?

    init(_ parsed: UnverifiedStatusList, key: VerificationKey, chainKey: ChainKey?, anchors: TrustAnchors?) {
        self.algorithm = parsed.algorithm
        self.message = parsed.signedMessage
        self.signature = parsed.signature
        self.keyID = parsed.keyID
        self.chain = parsed.chain
        self.keyType = key.type
        self.keyMaterial = key.publicKeyBytes
        self.keyIssuer = chainKey == nil ? key.issuer ?? parsed.issuer : parsed.issuer
        self.keyEnvironment = key.environment
        self.anchors = anchors
        self.chainKey = chainKey
    }

    /// The standard call's verdict (libsodium, or OpenSSL's EVP_PKEY_verify) with `key`.
    func verify(with key: VerificationKey) -> Bool {
        Self.verify(message: message, signature: signature, with: key)
    }

    /// The standard call's verdict on `signature` over `message` with `key`.
    static func verify(message: [UInt8], signature: [UInt8], with key: VerificationKey) -> Bool {
        guard signature.count == 64 else { return false }
        return message.withUnsafeBufferPointer { message in
            signature.withUnsafeBufferPointer { signature in
                switch key.type {
                case .ed25519: key.ed25519!.verifyWithSodium(signature: signature, message: message)
                case .p256: P256VerifyContext(key: key.p256!).verifyWithEVP(signature: signature, message: message)
                }
            }
        }
    }
}

extension StatusListToken {
    /// ``load(bytes:source:keys:anchors:options:maxInflatedBytes:)`` for the token in `file`.
    public static func load(
        file: String, keys: KeySet, anchors: TrustAnchors? = nil, options: VerificationOptions = VerificationOptions(),
        maxInflatedBytes: Int = 256 << 20
    ) throws(StatusListError) -> StatusListToken {
        // A list within the limit is never much larger compressed (stored DEFLATE blocks add
        // 5 bytes in 65,535; base64url a third): a larger file is refused before it is read.
        var status = stat()
        if stat(file, &status) == 0, Int(status.st_size) > maxInflatedBytes / 2 * 3 + (1 << 20) {
            throw StatusListError(
                source: file,
                message:
                    "the file (\(status.st_size) bytes) is larger than any list within the limit of \(maxInflatedBytes) inflated bytes"
            )
        }
        let bytes: [UInt8]
        do {
            bytes = try readFileBytes(file)
        } catch {
            throw StatusListError(source: file, message: "cannot read the file: \(error.reason)")
        }
        return try load(
            bytes: bytes, source: file, keys: keys, anchors: anchors, options: options,
            maxInflatedBytes: maxInflatedBytes)
    }
}

/// A Status List Token decoded for a person to read (`tokenverify inspect`), nothing verified.
public enum StatusListInspection {
    /// What a list holds: its URI, bits per entry, number of entries and non-zero entries.
    public struct Entries: Sendable {
        public var uri: String
        public var bits: Int
        public var count: Int
        public var nonZero: [(index: Int, status: UInt8)]
    }

    /// The `iat` of the Status List Token in `bytes` (as a list file holds it), read but not
    /// verified; nil when it is not one.
    public static func issuedAt(of bytes: [UInt8]) -> Double? {
        try? UnverifiedStatusList.parse(bytes, source: "the file").issuedAt
    }

    /// Whether `token` (compact JWS or base64url CWT text) declares itself a Status List Token
    /// by its `typ`.
    public static func isStatusList(_ token: [UInt8]) -> Bool {
        if token.contains(UInt8(ascii: ".")) {
            guard let header = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).first,
                let json = Base64URL.decode(header)
            else { return false }
            return String(decoding: json, as: UTF8.self).contains("\"\(UnverifiedStatusList.jwsType)\"")
        }
        guard let cbor = Base64URL.decode(token) else { return false }
        return withUTF8(of: UnverifiedStatusList.cwtType) { type in
            cbor.withUnsafeBufferPointer { bytes in
                bytes.count >= type.count
                    && (0...(bytes.count - type.count)).contains {
                        bytesEqual(UnsafeBufferPointer(rebasing: bytes[$0..<($0 + type.count)]), type)
                    }
            }
        }
    }

    /// The entries of the Status List Token `token`, read and inflated (within `maxInflatedBytes`)
    /// but not verified.
    public static func entries(of token: [UInt8], maxInflatedBytes: Int = 256 << 20) throws(StatusListError) -> Entries
    {
        let parsed = try UnverifiedStatusList.parse(token, source: "the token")
        let inflated: [UInt8]
        do {
            inflated = try parsed.compressedList.withUnsafeBufferPointer { (compressed) throws(Zlib.Failure) in
                try Zlib.inflate(compressed, limit: maxInflatedBytes)
            }
        } catch {
            throw StatusListError(source: "the token", message: "lst: \(error.description)")
        }
        let entries = StatusEntries(bytes: inflated, bits: parsed.bits)
        return Entries(uri: parsed.uri, bits: parsed.bits, count: entries.count, nonZero: entries.nonZero())
    }
}

/// One token to check, with the optional request context of spec §6.
public struct VerificationRequest: Sendable {
    /// The compact token.
    public var token: String
    /// What the request asks for, checked against the token's grant.
    public var context: RequestContext

    public init(
        token: String, device: String? = nil, object: String? = nil, channel: String? = nil,
        command: String? = nil, checkTime: Double? = nil
    ) {
        self.token = token
        self.context = RequestContext(
            device: device, object: object, channel: channel, command: command, checkTime: checkTime)
    }
}

/// The request context (spec §6): what the context checks compare against, and the check time.
public struct RequestContext: Sendable {
    /// Checked against `sub` when given.
    public var device: String?
    /// Checked against `aud` when given.
    public var object: String?
    /// Checked against `ch` when given.
    public var channel: String?
    /// Checked against `cmd` when given.
    public var command: String?
    /// The check time (NumericDate) for this request; defaults to the verifier's.
    public var checkTime: Double?

    public init(
        device: String? = nil, object: String? = nil, channel: String? = nil, command: String? = nil,
        checkTime: Double? = nil
    ) {
        self.device = device
        self.object = object
        self.channel = channel
        self.command = command
        self.checkTime = checkTime
    }
}

/// The request context as bytes borrowed from the request: the form the checks read. Made only
/// inside a `with…` call that keeps the bytes alive, and never kept beyond it.
package struct ContextBytes {
    var device: UnsafeBufferPointer<UInt8>?
    var object: UnsafeBufferPointer<UInt8>?
    var channel: UnsafeBufferPointer<UInt8>?
    var command: UnsafeBufferPointer<UInt8>?
    var checkTime: Double?

    package init(
        device: UnsafeBufferPointer<UInt8>? = nil, object: UnsafeBufferPointer<UInt8>? = nil,
        channel: UnsafeBufferPointer<UInt8>? = nil, command: UnsafeBufferPointer<UInt8>? = nil, checkTime: Double? = nil
    ) {
        self.device = device
        self.object = object
        self.channel = channel
        self.command = command
        self.checkTime = checkTime
    }
}

extension RequestContext {
    /// Calls `body` with this context as bytes.
    func withBytes<R>(_ body: (ContextBytes) -> R) -> R {
        var joined: [UInt8] = []
        var ranges: [Range<Int>?] = []
        for value in [device, object, channel, command] {
            guard let value else {
                ranges.append(nil)
                continue
            }
            let start = joined.count
            joined += value.utf8
            ranges.append(start..<joined.count)
        }
        return joined.withUnsafeBufferPointer { buffer in
            func bytes(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
                ranges[index].map { UnsafeBufferPointer(rebasing: buffer[$0]) }
            }
            return body(
                ContextBytes(
                    device: bytes(0), object: bytes(1), channel: bytes(2), command: bytes(3), checkTime: checkTime))
        }
    }
}

/// How a verifier checks tokens.
public struct VerificationOptions: Sendable {
    /// `--env`: tokens and keys of the other environment are refused.
    public var environment: Environment?
    /// `--issuer`: the required `iss`.
    public var issuer: String?
    /// Seconds of clock skew allowed on both ends of the validity window.
    public var leeway: Double
    /// The check time when a request has none; nil means the current time.
    public var checkTime: Double?
    /// Run every check and report every failure instead of stopping at the first.
    public var audit: Bool
    /// Slots in the signature cache (rounded up to a power of two); 0 turns the cache off.
    public var signatureCacheSlots: Int
    /// Bytes each kind of per-key precomputed table may take, by the kind's name (``tableKinds``:
    /// `es256`, `ed25519`); a kind not named here gets 64 MiB, and 0 turns that kind off. Tables
    /// are built in the background on each key's first use; keys beyond the cap verify through the
    /// library's standard call (EVP_PKEY_verify, crypto_sign_verify_detached).
    public var tableMemory: [String: Int]
    /// Bytes for ES256 keys' precomputed tables (about 160 KB per key); 0 turns them off. Default
    /// 64 MiB. The same as `tableMemory["es256"]`.
    public var es256TableMemory: Int {
        get { tableMemory["es256"] ?? 64 << 20 }
        set { tableMemory["es256"] = newValue }
    }
    /// Bytes for Ed25519 keys' precomputed tables (about 215 KB per key, from libsodium's own point
    /// functions); 0 turns them off. Default 64 MiB. The same as `tableMemory["ed25519"]`.
    public var ed25519TableMemory: Int {
        get { tableMemory["ed25519"] ?? 64 << 20 }
        set { tableMemory["ed25519"] = newValue }
    }
    /// Leave the status of tokens that name a status list unchecked (spec §4c `--skip-status-lists`).
    public var skipStatusLists: Bool

    public init(
        environment: Environment? = nil, issuer: String? = nil, leeway: Double = 0, checkTime: Double? = nil,
        audit: Bool = false, signatureCacheSlots: Int = 1 << 18, es256TableMemory: Int = 64 << 20,
        ed25519TableMemory: Int = 64 << 20, skipStatusLists: Bool = false, tableMemory: [String: Int] = [:]
    ) {
        self.skipStatusLists = skipStatusLists
        self.environment = environment
        self.issuer = issuer
        self.leeway = leeway
        self.checkTime = checkTime
        self.audit = audit
        self.signatureCacheSlots = signatureCacheSlots
        self.tableMemory = tableMemory.merging(["es256": es256TableMemory, "ed25519": ed25519TableMemory]) {
            explicit, _ in explicit
        }
    }
}

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
    /// Bytes each kind of per-key precomputed table may take (`verify --table-memory KIND=BYTES`).
    public var tableMemory: TableMemory
    /// Leave the status of tokens that name a status list unchecked (spec §4c `--skip-status-lists`).
    public var skipStatusLists: Bool
    /// Slots in the cache of validated certificate chains (spec §3b; rounded up to a power of
    /// two): memory stays bounded by it whatever the number of distinct chains.
    public var chainCacheEntries: Int

    public init(
        environment: Environment? = nil, issuer: String? = nil, leeway: Double = 0, checkTime: Double? = nil,
        audit: Bool = false, signatureCacheSlots: Int = 1 << 18, tableMemory: TableMemory = TableMemory(),
        skipStatusLists: Bool = false, chainCacheEntries: Int = 4096
    ) {
        self.environment = environment
        self.issuer = issuer
        self.leeway = leeway
        self.checkTime = checkTime
        self.audit = audit
        self.signatureCacheSlots = signatureCacheSlots
        self.tableMemory = tableMemory
        self.skipStatusLists = skipStatusLists
        self.chainCacheEntries = chainCacheEntries
    }

    /// Bytes for ES256 keys' precomputed tables: ``TableMemory/es256``.
    @available(*, deprecated, renamed: "tableMemory.es256")
    public var es256TableMemory: Int {
        get { tableMemory.es256 }
        set { tableMemory.es256 = newValue }
    }

    /// Bytes for Ed25519 keys' precomputed tables: ``TableMemory/ed25519``.
    @available(*, deprecated, renamed: "tableMemory.ed25519")
    public var ed25519TableMemory: Int {
        get { tableMemory.ed25519 }
        set { tableMemory.ed25519 = newValue }
    }
}

/// Bytes each kind of per-key precomputed table may take; 0 turns that kind off. Tables are built
/// in the background on each key's first use; keys beyond the cap verify through the library's
/// standard call (EVP_PKEY_verify, crypto_sign_verify_detached).
public struct TableMemory: Sendable, Equatable {
    /// ES256 keys' tables (about 160 KB per key). Default 64 MiB.
    public var es256: Int
    /// Ed25519 keys' tables (about 215 KB per key, from libsodium's own point functions). Default 64 MiB.
    public var ed25519: Int

    public init(es256: Int = 64 << 20, ed25519: Int = 64 << 20) {
        self.es256 = es256
        self.ed25519 = ed25519
    }

    /// The bytes of the kind named `name` (``VerificationOptions/tableKinds``: `es256`,
    /// `ed25519`), as `verify --table-memory NAME=BYTES` names it; nil for no such kind.
    public subscript(kind name: String) -> Int? {
        get {
            switch name {
            case "es256": es256
            case "ed25519": ed25519
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch name {
            case "es256": es256 = newValue
            case "ed25519": ed25519 = newValue
            default: break
            }
        }
    }
}

/// The Status List Tokens a verifier holds (spec §4c): every generation of every list, as loaded
/// and verified. Immutable; a new set is put in force whole, like a key set.
public final class StatusListSet: Sendable {
    /// No lists (a verifier given `--status-lists` with nothing in them yet).
    public static let empty = StatusListSet(lists: [])

    /// The lists, in the order given.
    public let lists: [StatusListToken]

    public init(lists: [StatusListToken]) {
        self.lists = lists
    }

    /// The number of lists (generations of all URIs).
    public var count: Int { lists.count }
}

/// The lists in force for one key set, by URI: each URI's generations in `iat` order, each one
/// verified with the key set (a list whose key left the set, or whose key's new material does
/// not verify it, is out of force). Looked up by the token's URI bytes without allocating.
struct StatusListIndex: Sendable {
    /// One URI's generations, oldest first.
    struct Generations: Sendable {
        let uri: [UInt8]
        let lists: [StatusListToken]
    }

    /// Whether status lists are configured at all (`--status-lists`): without them a token that
    /// refers to a list cannot have its status known.
    let isConfigured: Bool
    private let groups: [Generations]
    /// Group positions by a 64-bit hash of the URI (a collision chains to the next matching group).
    private let byHash: [UInt64: [Int]]
    /// Lists loaded but out of force with this key set, by URI, with why.
    let outOfForce: [String: String]

    static let unconfigured = StatusListIndex(lists: nil, keys: nil, options: VerificationOptions())

    /// The index of `lists` (nil: none configured) checked against `keys`.
    init(lists: StatusListSet?, keys: KeySet?, options: VerificationOptions) {
        isConfigured = lists != nil
        var byURI: [String: [StatusListToken]] = [:]
        var dropped: [String: String] = [:]
        for list in lists?.lists ?? [] {
            if let keys, list.stillVerifies(with: keys, options: options) {
                byURI[list.uri, default: []].append(list)
            } else {
                dropped[list.uri] = "its key \"\(list.keyID)\" is no longer in the key set, or no longer verifies it"
            }
        }
        var groups: [Generations] = []
        var byHash: [UInt64: [Int]] = [:]
        for (uri, lists) in byURI.sorted(by: { $0.key < $1.key }) {
            let bytes = Array(uri.utf8)
            byHash[Self.hash(bytes), default: []].append(groups.count)
            groups.append(Generations(uri: bytes, lists: lists.sorted { $0.issuedAt < $1.issuedAt }))
            dropped[uri] = nil
        }
        self.groups = groups
        self.byHash = byHash
        self.outOfForce = dropped
    }

    /// The generations of the list at `uri`.
    @inline(__always)
    func generations(of uri: UnsafeBufferPointer<UInt8>) -> Generations? {
        guard let candidates = byHash[Self.hash(uri)] else { return nil }
        for index in candidates where groups[index].uri.withUnsafeBufferPointer({ bytesEqual($0, uri) }) {
            return groups[index]
        }
        return nil
    }

    /// FNV-1a, 64 bits.
    @inline(__always)
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}

extension StatusListIndex.Generations {
    /// The list in force at `time`: the one with the greatest `iat` such that `iat − leeway ≤ time`.
    @inline(__always)
    func inForce(at time: Double, leeway: Double) -> StatusListToken? {
        var index = lists.count - 1
        while index >= 0 {
            if lists[index].issuedAt - leeway <= time { return lists[index] }
            index -= 1
        }
        return nil
    }
}

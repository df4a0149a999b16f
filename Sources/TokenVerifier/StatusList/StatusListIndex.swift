/// The status lists of a snapshot checked against its key set and trust anchors (spec §4c "Status
/// fails closed", §3b), by URI and issuer: a list answers only for tokens whose key names the same
/// `iss` as the key that signed the list (for a list or token with a chain, its own `iss`); a generation that a key rotation put out of force still shadows the
/// older generations of its URI; two generations with one `iat` and different entries answer
/// nothing. Looked up by the token's URI bytes without allocating.
struct StatusListIndex: Sendable {
    /// Whether status lists are configured at all (`--status-lists`): without them a token that
    /// refers to a list cannot have its status known.
    let isConfigured: Bool
    private let groups: [StatusListGenerations]
    /// Group positions by a 64-bit hash of the URI: every issuer's group of that URI (a collision
    /// chains to the groups of other URIs, told apart by their bytes).
    private let byHash: [UInt64: [Int]]
    /// What stderr should say of this index: each generation out of force (and what it shadows),
    /// each conflict (naming the files). One line each, stable across rebuilds of the same state.
    let notices: [String]

    static let unconfigured = StatusListIndex(lists: nil, keys: nil, options: VerificationOptions())

    /// The index of `lists` (nil: none configured) checked against `keys` and `anchors` (a list
    /// that carries a chain is checked by it where anchors are in force, spec §3b).
    init(lists: StatusListSet?, keys: KeySet?, anchors: TrustAnchors? = nil, options: VerificationOptions) {
        isConfigured = lists != nil
        var byGroup: [GroupKey: [(list: StatusListToken, why: String?)]] = [:]
        for list in lists?.lists ?? [] {
            switch list.signer(keys: keys, anchors: anchors, options: options) {
            case .success(let signer):
                byGroup[GroupKey(uri: list.uri, issuer: signer.issuer), default: []].append((list, nil))
                if signer.issuer != list.signerIssuer {
                    // Its signer now names another issuer: for the issuer it was loaded for, it is
                    // out of force and still shadows that issuer's older generations.
                    let why = "\(signer.by) now names iss \(signer.issuer.map { "\"\($0)\"" } ?? "(none)")"
                    byGroup[GroupKey(uri: list.uri, issuer: list.signerIssuer), default: []].append((list, why))
                }
            case .failure(let refusal):
                byGroup[GroupKey(uri: list.uri, issuer: list.signerIssuer), default: []].append((list, refusal.why))
            }
        }
        var groups: [StatusListGenerations] = []
        var byHash: [UInt64: [Int]] = [:]
        var notices: [String] = []
        for (key, members) in byGroup.sorted(by: { $0.key < $1.key }) {
            let generations = Self.generations(members)
            let uri = Array(key.uri.utf8)
            byHash[Self.hash(uri), default: []].append(groups.count)
            let group = StatusListGenerations(
                uri: uri, issuer: key.issuer.map { Array($0.utf8) }, generations: generations)
            groups.append(group)
            notices += Self.notices(group, uri: key.uri)
        }
        self.groups = groups
        self.byHash = byHash
        self.notices = notices
    }

    /// What a lookup found for a token's URI and issuer.
    enum Lookup {
        /// The generations of that URI signed for the token's issuer.
        case found(StatusListGenerations)
        /// No list of that URI is loaded.
        case noList
        /// Lists of that URI are loaded, none signed for the token's issuer: their issuers.
        case otherIssuers([String])
    }

    /// The generations of the list at `uri` signed for `issuer` (the `iss` of the token's key).
    /// With `keyKnown` false (an audit of a token whose key was not found), the URI's only group,
    /// if it has one group.
    @inline(__always)
    func generations(
        of uri: UnsafeBufferPointer<UInt8>, issuer: UnsafeBufferPointer<UInt8>?, keyKnown: Bool
    ) -> Lookup {
        guard let candidates = byHash[Self.hash(uri)] else { return .noList }
        var sameURI = 0
        var last = 0
        for index in candidates where groups[index].uri.withUnsafeBufferPointer({ bytesEqual($0, uri) }) {
            if keyKnown && Self.sameIssuer(groups[index].issuer, issuer) { return .found(groups[index]) }
            sameURI += 1
            last = index
        }
        if sameURI == 0 { return .noList }
        if !keyKnown && sameURI == 1 { return .found(groups[last]) }
        return .otherIssuers(
            candidates.filter { groups[$0].uri.withUnsafeBufferPointer { bytesEqual($0, uri) } }.map {
                groups[$0].issuerText
            })
    }

    @inline(__always)
    private static func sameIssuer(_ group: [UInt8]?, _ token: UnsafeBufferPointer<UInt8>?) -> Bool {
        switch (group, token) {
        case (nil, nil): true
        case (let group?, let token?): group.withUnsafeBufferPointer { bytesEqual($0, token) }
        default: false
        }
    }

    /// FNV-1a, 64 bits.
    @inline(__always)
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}

/// A URI and an issuer: the lists that are one list's generations.
private struct GroupKey: Hashable, Comparable {
    let uri: String
    let issuer: String?

    static func < (left: GroupKey, right: GroupKey) -> Bool {
        if left.uri != right.uri { return left.uri < right.uri }
        switch (left.issuer, right.issuer) {
        case (let left?, let right?): return left < right
        case (nil, let right): return right != nil
        case (_?, nil): return false
        }
    }
}

extension StatusListIndex {
    /// One group's lists as generations, oldest first: the lists with one `iat` are one generation
    /// when their entries (and `exp`) are identical (in force if any copy is), else a conflict.
    fileprivate static func generations(
        _ members: [(list: StatusListToken, why: String?)]
    ) -> [StatusListGeneration] {
        let sorted = members.sorted { $0.list.issuedAt < $1.list.issuedAt }
        var generations: [StatusListGeneration] = []
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end].list.issuedAt == sorted[start].list.issuedAt { end += 1 }
            generations.append(generation(Array(sorted[start..<end])))
            start = end
        }
        return generations
    }

    private static func generation(_ run: [(list: StatusListToken, why: String?)]) -> StatusListGeneration {
        var distinct: [StatusListToken] = []
        for member in run where !distinct.contains(where: { $0.hasSameEntries(as: member.list) }) {
            distinct.append(member.list)
        }
        let issuedAt = run[0].list.issuedAt
        if distinct.count > 1 {
            return StatusListGeneration(
                issuedAt: issuedAt, state: .conflicting(distinct.sorted { $0.source < $1.source }))
        }
        if let verified = run.filter({ $0.why == nil }).min(by: { $0.list.source < $1.list.source }) {
            return StatusListGeneration(issuedAt: issuedAt, state: .inForce(verified.list))
        }
        let first = run.min { $0.list.source < $1.list.source }!
        return StatusListGeneration(issuedAt: issuedAt, state: .outOfForce(first.list, why: first.why!))
    }

    /// The stderr lines of one group: its generations out of force and its conflicts.
    fileprivate static func notices(_ group: StatusListGenerations, uri: String) -> [String] {
        var notices: [String] = []
        for (position, generation) in group.generations.enumerated() {
            let issued = NumericDate.rfc3339(generation.issuedAt)
            let older = group.generations[..<position].map { "\(NumericDate.rfc3339($0.issuedAt)) (\($0.sources))" }
            let shadows =
                older.isEmpty
                ? ""
                : "; it shadows the older generation\(older.count == 1 ? "" : "s") issued \(older.joined(separator: ", "))"
            switch generation.state {
            case .inForce: continue
            case .outOfForce(let list, let why):
                notices.append(
                    "status list \"\(uri)\" is out of force: \(why) (generation issued \(issued), \(list.source))\(shadows): a line it would answer is status_unavailable"
                )
            case .conflicting:
                notices.append(
                    "status list \"\(uri)\" has generations issued \(issued) with different entries, in \(generation.sources): a line they would answer is status_unavailable"
                )
            }
        }
        return notices
    }
}

/// The status lists of a snapshot checked against its key set, trust anchors and revocations
/// (spec §4c, §3b) by the signer rule (``StatusListSigner``), grouped by URI, issuer and
/// environment: a list answers only for tokens of its issuer and environment; a generation out
/// of force (its signer failing the rule, or revoked from some time on) still shadows the older
/// generations; two generations with one `iat` and different entries answer nothing; a group
/// never steps back below its floor (``StatusListFloors``). Looked up by the token's URI bytes
/// without allocating.
struct StatusListIndex: Sendable {
    /// Whether status lists are configured at all (`--status-lists`): without them a token that
    /// refers to a list cannot have its status known.
    let isConfigured: Bool
    private let groups: [StatusListGenerations]
    /// Group positions by a 64-bit hash of the URI: every group of that URI (a collision chains
    /// to the groups of other URIs, told apart by their bytes).
    private let byHash: [UInt64: [Int]]
    /// What stderr should say of this index: each generation out of force (and what it shadows),
    /// each conflict (naming the files). One line each, stable across rebuilds of the same state.
    let notices: [String]
    /// What this index has seen, for the next one.
    let floors: StatusListFloors

    static let unconfigured = StatusListIndex(
        lists: nil, keys: nil, revocations: .empty, floors: .none, options: VerificationOptions())

    /// One list in its group, with the signer rule's verdict.
    typealias Member = (list: StatusListToken, why: String?, revokedFrom: Double, revokedWhy: String)

    /// The index of `lists` (nil: none configured) checked against `keys`, `anchors` (a list that
    /// carries a chain is checked by it where anchors are in force, spec §3b) and `revocations`,
    /// above `floors`.
    init(
        lists: StatusListSet?, keys: KeySet?, anchors: TrustAnchors? = nil, revocations: RevocationList,
        floors: StatusListFloors, options: VerificationOptions
    ) {
        isConfigured = lists != nil
        let byGroup = Self.members(lists?.lists ?? [], keys: keys, anchors: anchors, revocations: revocations, options)
        var floors = floors
        for (key, members) in byGroup { floors.raise(key, to: members.map(\.list)) }
        var groups: [StatusListGenerations] = []
        var byHash: [UInt64: [Int]] = [:]
        var notices: [String] = []
        for key in Set(byGroup.keys).union(floors.groups).sorted() {
            let generations = Self.generations(byGroup[key] ?? [], floor: floors.floor(of: key))
            let uri = Array(key.uri.utf8)
            byHash[Self.hash(uri), default: []].append(groups.count)
            let group = StatusListGenerations(
                uri: uri, issuer: key.issuer.map { Array($0.utf8) }, environment: key.environment,
                generations: generations)
            groups.append(group)
            notices += Self.notices(group, uri: key.uri)
        }
        self.groups = groups
        self.byHash = byHash
        self.notices = notices
        self.floors = floors
    }

    /// Each list in the group of its signer now (issuer and environment), and, where its signer
    /// fails the rule or now names another issuer or environment, in the group it was loaded
    /// for, out of force (it shadows that group's older generations); a list whose key verifies
    /// it but may not sign it (its `iss` or `env`) is also in that key's group, out of force.
    private static func members(
        _ lists: [StatusListToken], keys: KeySet?, anchors: TrustAnchors?, revocations: RevocationList,
        _ options: VerificationOptions
    ) -> [StatusListGroupKey: [Member]] {
        var byGroup: [StatusListGroupKey: [Member]] = [:]
        for list in lists {
            let loaded = StatusListGroupKey(
                uri: list.uri, issuer: list.signerIssuer, environment: list.signerEnvironment)
            switch list.signer(keys: keys, anchors: anchors, revocations: revocations, options: options) {
            case .success(let signer):
                let key = StatusListGroupKey(uri: list.uri, issuer: signer.issuer, environment: signer.environment)
                let revoked = signer.revoked ?? (.infinity, "")
                let why = revoked.since == -.infinity ? "its signer is revoked: \(revoked.detail)" : nil
                byGroup[key, default: []].append((list, why, revoked.since, revoked.detail))
                if key != loaded {
                    let why =
                        "\(signer.by) now names iss \(StatusListGenerations.describe(signer.issuer, signer.environment))"
                    byGroup[loaded, default: []].append((list, why, .infinity, ""))
                }
            case .failure(let refusal):
                byGroup[loaded, default: []].append((list, refusal.why, .infinity, ""))
                if let group = refusal.keyGroup {
                    let key = StatusListGroupKey(uri: list.uri, issuer: group.issuer, environment: group.environment)
                    if key != loaded { byGroup[key, default: []].append((list, refusal.why, .infinity, "")) }
                }
            }
        }
        return byGroup
    }

    /// What a lookup found for a token's URI, issuer and environment at a time.
    enum Lookup {
        /// The generation that answers at that time (in force, out of force or in conflict).
        case generation(StatusListGeneration)
        /// Lists answer for the token, none issued by that time: the first `iat`.
        case notIssuedYet(first: Double)
        /// No list of that URI is loaded.
        case noList
        /// Lists of that URI are loaded, none for the token's issuer and environment: theirs.
        case otherIssuers([String])
    }

    /// The generation that answers at `time` for a token referring to `uri`, of issuer `issuer`
    /// (its `iss`) whose key names no `iss` (`keyNamesNoIssuer`) and whose signer's environment
    /// is `environment`: the newest, across the groups that answer for it, issued by `time`
    /// (spec §4c). Two groups' generations with one `iat` answer together only when they are
    /// copies in force. With `keyKnown` false (an audit of a token whose key was not found), the
    /// URI's only group, if it has one group.
    @inline(__always)
    func generation(
        of uri: UnsafeBufferPointer<UInt8>, issuer: UnsafeBufferPointer<UInt8>?, keyNamesNoIssuer: Bool,
        environment: Environment?, keyKnown: Bool, at time: Double, leeway: Double
    ) -> Lookup {
        guard let candidates = byHash[Self.hash(uri)] else { return .noList }
        var sameURI = 0
        var answering = 0
        var first = Double.infinity
        var found: StatusListGeneration? = nil
        for index in candidates where groups[index].uri.withUnsafeBufferPointer({ bytesEqual($0, uri) }) {
            sameURI += 1
            let group = groups[index]
            guard
                group.answers(issuer: issuer, keyNamesNoIssuer: keyNamesNoIssuer, environment: environment) || !keyKnown
            else { continue }
            answering += 1
            first = min(first, group.generations[0].issuedAt)
            guard let generation = group.inForce(at: time, leeway: leeway) else { continue }
            if let current = found, current.issuedAt >= generation.issuedAt {
                if current.issuedAt == generation.issuedAt { found = current.merged(with: generation) }
            } else {
                found = generation
            }
        }
        if sameURI == 0 { return .noList }
        if !keyKnown && answering != 1 { return .otherIssuers(issuers(of: uri, candidates)) }
        if answering == 0 { return .otherIssuers(issuers(of: uri, candidates)) }
        return found.map { .generation($0) } ?? .notIssuedYet(first: first)
    }

    private func issuers(of uri: UnsafeBufferPointer<UInt8>, _ candidates: [Int]) -> [String] {
        candidates.filter { groups[$0].uri.withUnsafeBufferPointer { bytesEqual($0, uri) } }.map {
            groups[$0].issuerText
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

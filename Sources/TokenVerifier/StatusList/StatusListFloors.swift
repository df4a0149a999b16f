/// What a verifier has seen of each status list group (spec §4c "No step back"): the newest
/// `iat` it has loaded, and the entries of that generation. A group whose newest list now is
/// older than its floor (the file was removed, or rewritten with an older list) answers
/// `status_unavailable` where the floor's generation would have answered, until a newer
/// generation arrives; a list with the floor's `iat` and other entries makes that generation a
/// conflict. Carried from snapshot to snapshot (never shared, never locked); seeded at start-up
/// with the `iat`s `fetch` recorded (``StatusListFloor``).
public struct StatusListFloors: Sendable {
    struct Floor: Sendable {
        var issuedAt: Double
        /// The entries' digest (nil: known only from `fetch`'s record).
        var digest: [UInt8]?
        /// Two sets of entries were seen with this `iat`.
        var conflicted: Bool
        /// Where it was seen, for messages.
        var source: String
    }

    private(set) var byGroup: [StatusListGroupKey: Floor] = [:]
    /// Floors `fetch` recorded, by URI and issuer (every environment's group).
    private(set) var recorded: [RecordedKey: Double] = [:]

    struct RecordedKey: Hashable, Sendable {
        let uri: String
        let issuer: String?
    }

    /// No floors (a new process with no `fetch` state).
    public static let none = StatusListFloors()

    /// Floors seeded from what `fetch` recorded.
    public init(recorded floors: [StatusListFloor] = []) {
        for floor in floors {
            let key = RecordedKey(uri: floor.uri, issuer: floor.issuer)
            recorded[key] = max(recorded[key] ?? -.infinity, floor.issuedAt)
        }
    }

    /// The floor of `group`: what it saw, or what `fetch` recorded for its URI and issuer.
    func floor(of group: StatusListGroupKey) -> Floor? {
        let seen = byGroup[group]
        guard let fetched = recorded[RecordedKey(uri: group.uri, issuer: group.issuer)],
            fetched > seen?.issuedAt ?? -.infinity
        else { return seen }
        return Floor(issuedAt: fetched, digest: nil, conflicted: false, source: "fetch's record")
    }

    /// The groups that have a floor of their own (a recorded one stands for its URI and issuer
    /// with no environment where no group of them was loaded).
    var groups: Set<StatusListGroupKey> {
        var keys = Set(byGroup.keys)
        for key in recorded.keys
        where !keys.contains(where: { $0.uri == key.uri && $0.issuer == key.issuer }) {
            keys.insert(StatusListGroupKey(uri: key.uri, issuer: key.issuer, environment: nil))
        }
        return keys
    }

    /// Raises the floor of `group` to the newest of `lists` (its lists now, any state).
    mutating func raise(_ group: StatusListGroupKey, to lists: [StatusListToken]) {
        guard let newest = lists.map(\.issuedAt).max() else { return }
        let atNewest = lists.filter { $0.issuedAt == newest }
        let digests = Set(atNewest.map(\.entriesDigest))
        let source = atNewest.map(\.source).min()!
        if let floor = byGroup[group], floor.issuedAt > newest { return }
        if var floor = byGroup[group], floor.issuedAt == newest {
            if digests.count > 1 || digests.first != floor.digest { floor.conflicted = true }
            byGroup[group] = floor
            return
        }
        byGroup[group] = Floor(issuedAt: newest, digest: digests.first, conflicted: digests.count > 1, source: source)
    }
}

/// The `iat` `fetch` recorded for a list (its URI and issuer): the floor of that list after a
/// restart (spec §4c "No step back").
public struct StatusListFloor: Sendable, Equatable {
    public let uri: String
    public let issuer: String?
    public let issuedAt: Double

    public init(uri: String, issuer: String?, issuedAt: Double) {
        self.uri = uri
        self.issuer = issuer
        self.issuedAt = issuedAt
    }
}

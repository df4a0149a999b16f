extension StatusListIndex {
    /// One group's lists as generations, oldest first: the lists with one `iat` are one generation
    /// when their entries (and `exp`) are identical (in force if any copy is), else a conflict;
    /// above them the floor's generation where the group's newest list is older than its floor
    /// (withdrawn: out of force), and a conflict where the floor saw other entries with that `iat`.
    static func generations(_ members: [Member], floor: StatusListFloors.Floor?) -> [StatusListGeneration] {
        let sorted = members.sorted { $0.list.issuedAt < $1.list.issuedAt }
        var generations: [StatusListGeneration] = []
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end].list.issuedAt == sorted[start].list.issuedAt { end += 1 }
            generations.append(generation(Array(sorted[start..<end])))
            start = end
        }
        guard let floor else { return generations }
        let floorTime = NumericDate.rfc3339(floor.issuedAt)
        if floor.issuedAt > generations.last?.issuedAt ?? -.infinity {
            let why =
                "its generation issued \(floorTime) (\(floor.source)) was loaded and is gone; only a newer generation withdraws it"
            generations.append(
                StatusListGeneration(
                    issuedAt: floor.issuedAt, state: .outOfForce(nil, why: why), withdrawnDigest: floor.digest))
        } else if let last = generations.last, last.issuedAt == floor.issuedAt, !last.isConflict,
            floor.conflicted || (floor.digest != nil && !last.holds(floor.digest!))
        {
            let earlier = "a copy with other entries loaded earlier (\(floor.source))"
            generations[generations.count - 1] = StatusListGeneration(
                issuedAt: last.issuedAt, state: .conflicting(sources: [last.sources, earlier]))
        }
        return generations
    }

    private static func generation(_ run: [Member]) -> StatusListGeneration {
        var distinct: [StatusListToken] = []
        for member in run where !distinct.contains(where: { $0.hasSameEntries(as: member.list) }) {
            distinct.append(member.list)
        }
        let issuedAt = run[0].list.issuedAt
        if distinct.count > 1 {
            return StatusListGeneration(
                issuedAt: issuedAt, state: .conflicting(sources: distinct.map(\.source).sorted()))
        }
        let verified = run.filter { $0.why == nil }.max {
            ($0.revokedFrom, $1.list.source) < ($1.revokedFrom, $0.list.source)
        }
        if let verified {
            return StatusListGeneration(
                issuedAt: issuedAt,
                state: .inForce(verified.list, revokedFrom: verified.revokedFrom, revokedWhy: verified.revokedWhy))
        }
        let first = run.min { $0.list.source < $1.list.source }!
        return StatusListGeneration(issuedAt: issuedAt, state: .outOfForce(first.list, why: first.why!))
    }

    /// The stderr lines of one group: its generations out of force (or revoked from some time)
    /// and its conflicts.
    static func notices(_ group: StatusListGenerations, uri: String) -> [String] {
        var notices: [String] = []
        for (position, generation) in group.generations.enumerated() {
            let issued = NumericDate.rfc3339(generation.issuedAt)
            let older = group.generations[..<position].map { "\(NumericDate.rfc3339($0.issuedAt)) (\($0.sources))" }
            let shadows =
                older.isEmpty
                ? ""
                : "; it shadows the older generation\(older.count == 1 ? "" : "s") issued \(older.joined(separator: ", "))"
            switch generation.state {
            case .inForce(let list, let from, let why):
                guard from < .infinity else { continue }
                notices.append(
                    "status list \"\(uri)\" is out of force from \(NumericDate.rfc3339(from)) on (its signer: \(why); generation issued \(issued), \(list.source))\(shadows): a line it would answer then is status_unavailable"
                )
            case .outOfForce(let list, let why):
                notices.append(
                    "status list \"\(uri)\" is out of force: \(why) (generation issued \(issued), \(list?.source ?? "no file now"))\(shadows): a line it would answer is status_unavailable"
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

extension StatusListGeneration {
    /// Whether it is a conflict already.
    var isConflict: Bool {
        if case .conflicting = state { return true }
        return false
    }

    /// Whether this generation holds the entries of `digest`.
    func holds(_ digest: [UInt8]) -> Bool { entriesDigest == digest }
}

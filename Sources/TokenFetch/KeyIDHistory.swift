/// spec §7: a key set URL never brings back a `kid` it dropped. A replayed old JWKS would
/// otherwise bring a retired (perhaps compromised) key back, and every token and list it signs
/// would pass again. `fetch` records, per key set URL, the `kid`s of the set it last wrote and
/// those later sets dropped (the last ``removedLimit``, oldest first); a set holding a dropped
/// `kid` is refused, unless the operator readmits that `kid` for the run (`--readmit-kid`).
struct KeyIDHistory: Equatable {
    /// The dropped `kid`s remembered per URL: the oldest are forgotten beyond it (1,024 `kid`s of
    /// at most a few hundred bytes each keep the state file small).
    static let removedLimit = 1024

    /// The `kid`s of the set last written (nil: none recorded, as in a state an older `fetch` wrote).
    var current: [String]?
    /// The `kid`s dropped, oldest first, without repeats.
    var removed: [String]

    /// Throws a refusal when `incoming` holds a dropped `kid` that `readmitted` does not name.
    func check(_ incoming: [String], readmitted: Set<String>) throws(FetchError) {
        let dropped = Set(removed)
        let back = incoming.filter { dropped.contains($0) && !readmitted.contains($0) }
        guard !back.isEmpty else { return }
        let names = back.map { "\"\($0)\"" }.joined(separator: ", ")
        throw FetchError(
            refused: "the key set brings back \(back.count == 1 ? "key" : "keys") \(names), which an earlier key set "
                + "of this URL dropped (a replayed or stale key set; --readmit-kid KID allows one back on purpose)",
            reason: .retiredKey)
    }

    /// The history once a set holding `written` is written: the `kid`s the last set had and this
    /// one lacks are dropped, those it holds are no longer (a readmitted `kid` is cleared).
    func after(writing written: [String]) -> KeyIDHistory {
        let holds = Set(written)
        var removed = removed.filter { !holds.contains($0) }
        let known = Set(removed)
        removed += (current ?? []).filter { !holds.contains($0) && !known.contains($0) }
        if removed.count > Self.removedLimit { removed.removeFirst(removed.count - Self.removedLimit) }
        return KeyIDHistory(current: written, removed: removed)
    }
}

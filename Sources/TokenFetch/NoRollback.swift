import TokenVerifier

/// spec §7 "No rollback": a downloaded Status List Token that passed verify's checks may still not
/// replace the list in place. A stale mirror, a cache or a replayed response must never
/// un-revoke a token, so a list is refused when it is
/// - expired (`exp` ≤ now), or issued more than `leeway` seconds in the future (``checkFresh``);
/// - older than the URL's floor, or as old with other entries (``checkFloor``). The floor is the
///   greater of the `iat` of the list in the file and the `iat` recorded when `fetch` last wrote
///   it, so it holds when the file was removed, rewritten by hand, or no longer loads.
/// The file in place is kept, and where there is none, none is written.
enum NoRollback {
    /// The newest list known for a URL.
    struct Floor {
        /// Its `iat`.
        var issuedAt: Double
        /// Where it is known from, for the refusal ("the list in place").
        var whence: String
        /// The digests (``StatusListToken/entriesDigestHex``) of the entries known at `issuedAt`, first the recorded
        /// one: a list of that `iat` is a copy when its entries have the first. Empty: none known,
        /// so no list of that `iat` is taken.
        var entries: [() -> String?]
    }

    /// The floor from the file in place (`file`: its `iat` and, when it loads, the list) and
    /// from the state (`recorded`: the `iat` and entries digest last written); nil when neither is.
    static func floor(
        file: (issuedAt: Double, list: StatusListToken?)?, recorded: (issuedAt: Double?, entries: String?)
    ) -> Floor? {
        let recordedAt = recorded.issuedAt
        guard let issuedAt = [file?.issuedAt, recordedAt].compactMap({ $0 }).max() else { return nil }
        var entries: [() -> String?] = []
        if recordedAt == issuedAt, let digest = recorded.entries { entries.append({ digest }) }
        if let file, file.issuedAt == issuedAt, let list = file.list { entries.append({ list.entriesDigestHex }) }
        let whence =
            file?.issuedAt == issuedAt
            ? "the list in place" : "the list last written (its iat recorded in .fetch-state.json)"
        return Floor(issuedAt: issuedAt, whence: whence, entries: entries)
    }

    /// Throws a refusal when `downloaded` has expired or is issued beyond `leeway`.
    static func checkFresh(_ downloaded: StatusListSummary, now: Double, leeway: Double) throws(FetchError) {
        let issued = NumericDate.rfc3339(downloaded.issuedAt)
        if let expiresAt = downloaded.expiresAt, expiresAt <= now {
            throw FetchError(
                refused: "the list (issued \(issued)) expired at \(NumericDate.rfc3339(expiresAt)), "
                    + "before now (\(NumericDate.rfc3339(now)))",
                reason: .expired)
        }
        if downloaded.issuedAt > now + leeway {
            throw FetchError(
                refused: "the list is issued at \(issued), more than \(seconds(leeway)) (--leeway) "
                    + "after now (\(NumericDate.rfc3339(now)))",
                reason: .future)
        }
    }

    /// Throws a refusal when `downloaded` (its entries' digest `entries`, nil when unknown) is
    /// older than `floor`, or as old with other entries.
    static func checkFloor(_ downloaded: StatusListSummary, entries: String?, floor: Floor?) throws(FetchError) {
        guard let floor else { return }
        let issued = NumericDate.rfc3339(downloaded.issuedAt)
        let current = NumericDate.rfc3339(floor.issuedAt)
        if downloaded.issuedAt < floor.issuedAt {
            throw FetchError(
                refused: "the list is issued at \(issued), before \(floor.whence) (issued \(current)): "
                    + "a stale or replayed copy",
                reason: .rollback)
        }
        if downloaded.issuedAt == floor.issuedAt {
            guard let entries, let known = floor.entries.first?(), known == entries else {
                throw FetchError(
                    refused: "the list has the iat of \(floor.whence) (\(current)) and other entries",
                    reason: .rollback)
            }
        }
    }
}

import TokenVerifier

/// spec §7 "No rollback": a downloaded Status List Token that passed verify's checks may still not
/// replace the list in place. A stale mirror, a cache or a replayed response must never
/// un-revoke a token, so a list is refused when it is
/// - older than the list in place (`iat` earlier), or as old with other entries;
/// - expired (`exp` ≤ now);
/// - issued more than `leeway` seconds in the future.
/// The file in place is kept, and where there is none, none is written.
enum NoRollback {
    /// The list in place: its `iat` and, when it could be loaded, the list itself.
    struct InPlace {
        var issuedAt: Double
        var list: StatusListToken?
    }

    /// Throws a refusal (``FetchError/refused``) saying why `downloaded` may not be written.
    static func check(
        _ downloaded: StatusListSummary, inPlace: InPlace?, now: Double, leeway: Double
    ) throws(FetchError) {
        let issued = NumericDate.rfc3339(downloaded.issuedAt)
        if let expiresAt = downloaded.expiresAt, expiresAt <= now {
            throw FetchError(
                refused:
                    "the list (issued \(issued)) expired at \(NumericDate.rfc3339(expiresAt)), before now (\(NumericDate.rfc3339(now)))"
            )
        }
        if downloaded.issuedAt > now + leeway {
            throw FetchError(
                refused:
                    "the list is issued at \(issued), more than \(seconds(leeway)) (--leeway) after now (\(NumericDate.rfc3339(now)))"
            )
        }
        guard let inPlace else { return }
        let current = NumericDate.rfc3339(inPlace.issuedAt)
        if downloaded.issuedAt < inPlace.issuedAt {
            throw FetchError(
                refused:
                    "the list is issued at \(issued), before the list in place (issued \(current)): a stale or replayed copy"
            )
        }
        if downloaded.issuedAt == inPlace.issuedAt {
            guard let list = downloaded.list, let currentList = inPlace.list, list.hasSameEntries(as: currentList)
            else {
                throw FetchError(
                    refused: "the list has the iat of the list in place (\(current)) and other entries")
            }
        }
    }
}

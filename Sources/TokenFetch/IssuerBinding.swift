import TokenVerifier

/// The issuer a Status List Token answers for (trust rule B): the `iss` of the key that signed
/// it, or where that key names none the list's own `iss` claim (for a list checked by its chain,
/// its `iss`, bound to the leaf at load). Nil: the list names no issuer.
func listIssuer(of list: StatusListToken) -> String? {
    list.signerIssuer ?? list.issuer
}

/// spec §7: a URL's lists have one issuer. The first list `fetch` writes for a URL records its
/// issuer; a list of another issuer is refused for that URL, served directly or through a
/// redirect, so that a publisher (or whoever holds one of the key set's keys) cannot replace
/// another issuer's list and then have that issuer's next list refused as older.
enum IssuerBinding {
    /// Throws a refusal when `downloaded`'s issuer is not `recorded` (nil: none recorded yet, any
    /// issuer is taken).
    static func check(
        _ downloaded: StatusListSummary, recorded: FetchState.RecordedIssuer?
    ) throws(FetchError) {
        guard let recorded, recorded.iss != downloaded.issuer else { return }
        throw FetchError(
            refused: "the list is \(describe(downloaded.issuer)), and this URL's lists are \(describe(recorded.iss)) "
                + "(recorded by the list first written): another issuer's list is never written for it",
            reason: .otherIssuer)
    }

    private static func describe(_ issuer: String?) -> String {
        issuer.map { "of issuer \($0)" } ?? "of no issuer (neither its key nor the list names one)"
    }
}

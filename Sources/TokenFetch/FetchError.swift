/// Why one URL could not be fetched, or a file not written: one sentence.
package struct FetchError: Error, CustomStringConvertible, Sendable {
    package var description: String
    /// Why a download that passed verify's checks may still not replace the file in place
    /// (spec §7); nil for a failure.
    package var refusal: RefusalReason?
    /// A download that passed verify's checks but may not replace the file in place.
    package var isRefusal: Bool { refusal != nil }

    package init(_ description: String) {
        self.description = description
        refusal = nil
    }

    /// A refusal by one of spec §7's rules.
    package init(refused description: String, reason: RefusalReason) {
        self.description = description
        refusal = reason
    }
}

/// Why `fetch` kept a file rather than write a download (the `reason` label of the metrics'
/// refusal counter).
package enum RefusalReason: String, Sendable, CaseIterable {
    /// The download fails the checks `verify` makes (a bad key set, signature, `typ`, `sub`).
    case invalid
    /// A status list older than the URL's floor, or as old with other entries.
    case rollback
    /// A status list whose `exp` has passed.
    case expired
    /// A status list issued more than `--leeway` in the future.
    case future
    /// A status list of another issuer than the URL's lists.
    case otherIssuer = "other_issuer"
    /// A key set that brings back a `kid` the URL's key sets dropped.
    case retiredKey = "retired_key"
}

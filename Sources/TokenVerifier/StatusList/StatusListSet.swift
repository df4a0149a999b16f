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

/// One generation of a list (one URI, issuer and environment, one `iat`) as the index holds it.
struct StatusListGeneration: Sendable {
    /// What a generation answers.
    enum State: Sendable {
        /// Its signer passes the signer rule: it answers for lines before `revokedFrom` (a
        /// revocation of its signer, `revokedWhy`; +∞ when none applies).
        case inForce(StatusListToken, revokedFrom: Double, revokedWhy: String)
        /// Its signer fails the signer rule (why), or, with no list, it was seen and is gone (a
        /// file removed or rewritten with an older list): it answers nothing, and still shadows
        /// the older generations, so a line it would answer is `status_unavailable`.
        case outOfForce(StatusListToken?, why: String)
        /// Lists with this `iat` and different entries: a line they would answer is
        /// `status_unavailable` (never decided by file name or order).
        case conflicting(sources: [String])
    }

    let issuedAt: Double
    let state: State
    /// The entries' digest of a generation seen and gone (out of force with no list): the floor's.
    var withdrawnDigest: [UInt8]? = nil

    /// The digest of the entries it holds, where known (none for a conflict).
    var entriesDigest: [UInt8]? {
        switch state {
        case .inForce(let list, _, _): list.entriesDigest
        case .outOfForce(let list, _): list?.entriesDigest ?? withdrawnDigest
        case .conflicting: nil
        }
    }

    /// Where it came from, for messages: its file, or the files of a conflict.
    var sources: String {
        switch state {
        case .inForce(let list, _, _): list.source
        case .outOfForce(let list, _): list?.source ?? "no file now"
        case .conflicting(let sources): sources.joined(separator: " and ")
        }
    }

    /// `self` and `other`, answering for a line from different groups with one `iat`, as one
    /// generation: copies of the same entries are one generation, in force if either is (the
    /// later revocation wins, as within a group); other entries are a conflict.
    func merged(with other: StatusListGeneration) -> StatusListGeneration {
        guard let digest = entriesDigest, digest == other.entriesDigest else {
            return StatusListGeneration(issuedAt: issuedAt, state: .conflicting(sources: [sources, other.sources]))
        }
        switch (state, other.state) {
        case (.inForce(_, let from, _), .inForce(_, let otherFrom, _)): return from >= otherFrom ? self : other
        case (_, .inForce): return other
        default: return self
        }
    }
}

/// A URI, an issuer and an environment: the lists that are one list's generations (spec §4c).
struct StatusListGroupKey: Hashable, Comparable, Sendable {
    let uri: String
    /// The list's issuer (its key's `iss`, else its own; nil for neither).
    let issuer: String?
    /// Its signer's environment (nil: none).
    let environment: Environment?

    static func < (left: StatusListGroupKey, right: StatusListGroupKey) -> Bool {
        if left.uri != right.uri { return left.uri < right.uri }
        if left.issuer != right.issuer { return (left.issuer ?? "") < (right.issuer ?? "") || left.issuer == nil }
        return (left.environment?.rawValue ?? "") < (right.environment?.rawValue ?? "")
    }
}

/// The generations of one group, oldest first.
struct StatusListGenerations: Sendable {
    let uri: [UInt8]
    let issuer: [UInt8]?
    let environment: Environment?
    let generations: [StatusListGeneration]

    /// The generation for `time`: the one with the greatest `iat` such that `iat − leeway ≤ time`.
    @inline(__always)
    func inForce(at time: Double, leeway: Double) -> StatusListGeneration? {
        var index = generations.count - 1
        while index >= 0 {
            if generations[index].issuedAt - leeway <= time { return generations[index] }
            index -= 1
        }
        return nil
    }

    /// Whether this group's lists answer for a token of issuer `issuer` (its `iss`) whose signer's
    /// environment is `environment` (spec §4c): the same issuer, or none where the token's key
    /// names none; the same environment, or none.
    @inline(__always)
    func answers(
        issuer tokenIssuer: UnsafeBufferPointer<UInt8>?, keyNamesNoIssuer: Bool,
        environment tokenEnvironment: Environment?
    ) -> Bool {
        guard environment == nil || environment == tokenEnvironment else { return false }
        guard let issuer else { return keyNamesNoIssuer || tokenIssuer == nil }
        guard let tokenIssuer else { return false }
        return issuer.withUnsafeBufferPointer { bytesEqual($0, tokenIssuer) }
    }

    /// The issuer and environment as text, for messages.
    var issuerText: String {
        Self.describe(issuer.map { String(decoding: $0, as: UTF8.self) }, environment)
    }

    /// `"iss"` (or `(none)`), and ` (env E)` when an environment is named.
    static func describe(_ issuer: String?, _ environment: Environment?) -> String {
        let name = issuer.map { "\"\($0)\"" } ?? "(none)"
        return environment.map { "\(name) (env \($0.rawValue))" } ?? name
    }
}

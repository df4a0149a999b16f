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

/// One generation of a list (one URI, one issuer, one `iat`) as the index holds it.
struct StatusListGeneration: Sendable {
    /// What a generation answers.
    enum State: Sendable {
        /// Verified with the key set in force: it answers.
        case inForce(StatusListToken)
        /// Its key left the key set or no longer verifies it (why): it answers nothing, and still
        /// shadows the older generations, so a line it would answer is `status_unavailable`.
        case outOfForce(StatusListToken, why: String)
        /// Lists with this `iat` and different entries: a line they would answer is
        /// `status_unavailable` (never decided by file name or order).
        case conflicting([StatusListToken])
    }

    let issuedAt: Double
    let state: State

    /// Where it came from, for messages: its file, or the files of a conflict.
    var sources: String {
        switch state {
        case .inForce(let list), .outOfForce(let list, _): list.source
        case .conflicting(let lists): lists.map(\.source).joined(separator: " and ")
        }
    }
}

/// The generations of one URI signed for one issuer (the `iss` of the key that signed them; nil
/// for keys without one), oldest first.
struct StatusListGenerations: Sendable {
    let uri: [UInt8]
    let issuer: [UInt8]?
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

    /// The issuer as text, for messages.
    var issuerText: String { issuer.map { "\"\(String(decoding: $0, as: UTF8.self))\"" } ?? "(none)" }
}

import Foundation

/// The newest list `fetch` wrote for a status list URL (spec §7, trust rule E): where `verify`
/// follows `fetch`'s folder, a list older than this is never taken after a restart.
public struct StatusListFloor: Sendable, Equatable {
    /// The list's URI: its `sub`, which is the URL it was fetched from.
    public let uri: String
    /// The issuer its lists answer for (trust rule B); nil when the lists name none, or when the
    /// state was written by a `fetch` that did not record issuers (until it next writes the list).
    public let issuer: String?
    /// The `iat` of the newest list written: the floor.
    public let issuedAt: Double

    public init(uri: String, issuer: String?, issuedAt: Double) {
        self.uri = uri
        self.issuer = issuer
        self.issuedAt = issuedAt
    }
}

/// The floors `fetch` recorded for the lists of `followedFolder`, by URI, when that folder is a
/// `DIR/status-lists` that `fetch` writes (its state, `DIR/.fetch-state.json`, exists); [] when
/// it is not fetch's. Throws naming the state file when it exists but cannot be read or parsed.
///
/// ```swift
/// let floors = try statusListFloors(followedFolder: "/var/lib/tokenverify/status-lists")
/// ```
public func statusListFloors(followedFolder: String) throws(FetchStateError) -> [StatusListFloor] {
    let folder = URL(fileURLWithPath: followedFolder).standardizedFileURL
    guard folder.lastPathComponent == FetchTarget.Kind.statusList.folder else { return [] }
    let state = try FetchState.load(directory: folder.deletingLastPathComponent().path)
    let prefix = "\(FetchTarget.Kind.statusList.folder)/"
    return state.entries.compactMap { url, entry in
        guard entry.file.hasPrefix(prefix), let issuedAt = entry.issuedAt else { return nil }
        return StatusListFloor(uri: url, issuer: entry.issuer?.iss, issuedAt: issuedAt)
    }.sorted { $0.uri < $1.uri }
}

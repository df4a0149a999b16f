import Foundation
import TokenVerifier

/// The floors `fetch` recorded for the lists of `followedFolder` (spec §4c "No step back": the
/// `iat` of the newest list written for each URL, and its issuer; nil where the lists name none,
/// or the state was written by a `fetch` that did not record issuers), by URI, when that folder is a
/// `DIR/status-lists` that `fetch` writes (its state, `DIR/.fetch-state.json`, exists); [] when
/// it is not fetch's. Throws naming the state file when it exists but cannot be read or parsed.
///
/// ```swift
/// let floors = try statusListFloors(followedFolder: "/var/lib/tokenverify/status-lists")
/// ```
package func statusListFloors(followedFolder: String) throws(FetchStateError) -> [StatusListFloor] {
    let folder = URL(fileURLWithPath: followedFolder).standardizedFileURL
    guard folder.lastPathComponent == FetchTarget.Kind.statusList.folder else { return [] }
    let state = try FetchState.load(directory: folder.deletingLastPathComponent().path)
    let prefix = "\(FetchTarget.Kind.statusList.folder)/"
    return state.entries.compactMap { url, entry in
        guard entry.file.hasPrefix(prefix), let issuedAt = entry.issuedAt else { return nil }
        return StatusListFloor(uri: url, issuer: entry.issuer?.iss, issuedAt: issuedAt)
    }.sorted { $0.uri < $1.uri }
}

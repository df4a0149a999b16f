import Foundation
import TokenConcurrency

#if canImport(Glibc)
import Glibc
#endif

/// What `fetch` remembers between runs, in `DIR/.fetch-state.json` (outside the folders `verify`
/// reads): for each URL, its file, the validators of its last good response, and what keeps its
/// file from moving back (spec §7): a list's `iat`, issuer and entries, the digest of the bytes
/// written, a key set's `kid`s and those it dropped. Every member but `file`, `validators` and
/// `checkedAt` is optional, so that a state an older `fetch` wrote loads.
struct FetchState: Codable {
    struct Entry: Codable {
        var file: String
        var validators: Validators
        /// When the file was last written or confirmed (a 304), as a NumericDate.
        var checkedAt: Double
        /// The `iat` of the status list last written to the file: the floor of the URL's lists,
        /// also once that file is gone or no longer loads.
        var issuedAt: Double?
        /// Hex SHA-256 of the bytes last written: a 304 keeps the file only when it still holds them.
        var sha256: String?
        /// The issuer of the URL's lists (a status list URL): set by the first list written.
        var issuer: RecordedIssuer?
        /// Hex SHA-256 of the entries of the list last written (``StatusListToken/entriesDigestHex``): a list of the
        /// same `iat` is a copy only when its entries have this digest.
        var entriesDigest: String?
        /// The `kid`s of the key set last written (a key set URL).
        var keyIDs: [String]?
        /// The `kid`s the URL's key sets dropped, oldest first, at most ``KeyIDHistory/removedLimit``.
        var removedKeyIDs: [String]?
    }

    /// A list's issuer as recorded: `{"iss": "…"}`, or `{}` for a list whose issuer names none
    /// (the member absent: nothing recorded yet).
    struct RecordedIssuer: Codable, Equatable {
        var iss: String?
    }

    var entries: [String: Entry] = [:]

    /// The state in `directory`: empty when there is no state file; a file that exists but
    /// cannot be read or parsed throws naming it (taking it for an empty state would drop every
    /// floor it holds).
    static func load(directory: String) throws(FetchStateError) -> FetchState {
        let file = path(in: directory)
        guard let data = FileManager.default.contents(atPath: file) else {
            var info = stat()
            if lstat(file, &info) != 0 && errno == ENOENT { return FetchState() }
            throw FetchStateError(file: file, why: "cannot be read: \(errnoText())")
        }
        do {
            return try JSONDecoder().decode(FetchState.self, from: data)
        } catch {
            throw FetchStateError(file: file, why: "does not parse as fetch's state: \(error)")
        }
    }

    /// Writes the state through a temporary file renamed into place.
    func save(directory: String) throws(FetchError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw FetchError("cannot encode the fetch state: \(error)") }
        let file = try AtomicFileWriter.fetching(FetchState.path(in: directory))
        do { try file.write(Array(data)) } catch { throw FetchError(error.description) }
        try file.commitFetched()
    }

    static func path(in directory: String) -> String { "\(directory)/.fetch-state.json" }
}

/// A state file that exists but cannot be used: `fetch` stops (and `verify` with it, where it
/// follows fetch's folder) naming the file, rather than forget the floors it holds.
package struct FetchStateError: Error, CustomStringConvertible, Sendable {
    /// The state file.
    package var file: String
    /// What is wrong with it.
    package var why: String

    package var description: String {
        "\(file) \(why) (fetch's state: move it aside only to start over, which forgets every floor it holds)"
    }
}

import Foundation
import LiveState
import TokenVerifier

/// What `fetch` keeps of a Status List Token that passed its checks.
package struct StatusListSummary: Sendable {
    /// Its `sub`: the URI tokens name.
    package var uri: String
    /// Its `iat`.
    package var issuedAt: Double
    /// Its `exp`, when it has one.
    package var expiresAt: Double?
    /// Its `ttl`, seconds.
    package var timeToLive: Double?
    /// What the report line says of it ("1000 entries of 1 bit").
    package var description: String
    /// The list itself, when the loader keeps it (to tell a copy from other entries of one `iat`).
    package var list: StatusListToken?
    /// The issuer it answers for (trust rule B: its key's `iss`, else its own; nil: none named).
    package var issuer: String?

    package init(
        uri: String, issuedAt: Double, expiresAt: Double?, timeToLive: Double?, description: String,
        list: StatusListToken? = nil, issuer: String? = nil
    ) {
        self.uri = uri
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.timeToLive = timeToLive
        self.description = description
        self.list = list
        self.issuer = issuer
    }
}

/// Loads a Status List Token exactly as `verify --status-lists` loads one (spec §4c: format,
/// `typ`, signature against `keys`, claims, the list inflated within its limit); `source` names
/// it in errors. Throws an error whose description says why it fails.
package typealias StatusListLoader =
    @Sendable (_ bytes: [UInt8], _ source: String, _ keys: KeySet) throws -> StatusListSummary

/// The loader of `verify --status-lists`: ``StatusListToken/load(bytes:source:keys:anchors:options:maxInflatedBytes:)``,
/// with `anchors` as `verify --trust-anchors` gives them (a list that carries a chain is checked
/// by it, spec §3b; nil: by `kid` only).
package func standardStatusListLoader(
    maxInflatedBytes: Int = 256 << 20, anchors: TrustAnchors? = nil
) -> StatusListLoader {
    { bytes, source, keys in
        let list = try StatusListToken.load(
            bytes: bytes, source: source, keys: keys, anchors: anchors,
            maxInflatedBytes: maxInflatedBytes)
        let entries = list.count == 1 ? "1 entry" : "\(list.count) entries"
        return StatusListSummary(
            uri: list.uri, issuedAt: list.issuedAt, expiresAt: list.expiresAt,
            timeToLive: list.timeToLive,
            description: "status list, \(entries) of \(list.bits) bit\(list.bits == 1 ? "" : "s")", list: list,
            issuer: listIssuer(of: list))
    }
}

/// The checks a download passes before it replaces a file: the loaders `verify` uses.
enum DownloadChecks {
    /// A key set as `verify` loads it at start-up (spec §3), which must also load beside the
    /// other key files of `folder` (no `kid` in two files). Returns the `kid`s, in the set's
    /// order, and the loader's warnings.
    static func keySet(
        _ bytes: [UInt8], url: String, folder: String,
        replacing name: String
    ) throws(FetchError) -> (keyIDs: [String], warnings: [String]) {
        let loaded: (KeySet, warnings: [String])
        do {
            loaded = try KeySet.parse(bytes, file: url)
        } catch {
            throw FetchError("not a key set verify would load: \(error.description)")
        }
        var owner: [String: String] = [:]
        for file in StatePaths.expand([folder]) where file != "\(folder)/\(name)" {
            guard let (other, _) = try? KeySet.load(files: [file]) else { continue }
            for key in other.keys { owner[key.keyID] = file }
        }
        for key in loaded.0.keys {
            if let file = owner[key.keyID] {
                throw FetchError("key \"\(key.keyID)\" is also in \(file): verify would refuse the folder")
            }
        }
        return (loaded.0.keys.map(\.keyID), loaded.warnings)
    }

    /// The key set status lists are checked against: every key file in `folder`, as
    /// `verify --keys folder` loads it.
    static func keysForStatusLists(folder: String) -> Result<KeySet, FetchError> {
        let files = StatePaths.expand([folder])
        guard !files.isEmpty else {
            return .failure(FetchError("no key set in \(folder) to check it against (fetch one with --keys)"))
        }
        do {
            return .success(try KeySet.load(files: files).0)
        } catch {
            return .failure(FetchError("the key set in \(folder) does not load: \(error.description)"))
        }
    }

    /// A Status List Token as `verify` loads it, whose `sub` must be the URL it came from.
    static func statusList(
        _ bytes: [UInt8], url: String, keys: KeySet,
        loader: StatusListLoader
    ) throws(FetchError) -> StatusListSummary {
        let summary: StatusListSummary
        do {
            summary = try loader(bytes, url, keys)
        } catch {
            throw FetchError("not a status list verify would load: \(error)")
        }
        guard summary.uri == url else {
            throw FetchError("its sub is \"\(summary.uri)\", not the URL it was fetched from")
        }
        return summary
    }
}

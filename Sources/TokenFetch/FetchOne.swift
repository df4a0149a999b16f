import Foundation
import TokenConcurrency
import TokenVerifier

/// One URL's round: the conditional GET, verify's checks, spec §7's rules against what the state
/// recorded, the rename, and the record.
extension Fetcher {
    /// What a download that passed the checks holds, for the report and the state.
    struct Checked {
        var detail: String
        var summary: StatusListSummary?
        /// The digest of a list's entries (``StatusListToken/entriesDigestHex``).
        var entries: String?
        /// A key set's `kid`s, and its URL's history before it.
        var keyIDs: [String]?
        var history: KeyIDHistory?
    }

    /// Fetches one target; status lists are checked against `listKeys`.
    func fetch(_ target: FetchTarget, listKeys: Result<KeySet, FetchError>?) -> FetchReport {
        let destination = "\(folder(target.kind))/\(target.fileName)"
        let existing = Self.contents(destination)
        let inPlaceList = existing.flatMap { currentList($0, target, listKeys) }
        func report(_ outcome: FetchReport.Outcome, _ summary: StatusListSummary? = nil) -> FetchReport {
            FetchReport(target: target, outcome: outcome, statusList: summary ?? inPlaceList)
        }
        var checking = false
        do throws(FetchError) {
            let file = try AtomicFileWriter.fetching(destination)
            defer { file.discard() }
            // Validators go only with the file fetch recorded: one changed by hand is fetched in full.
            let recorded = state.entries[target.url]
            let validators = isRecorded(existing, target) ? recorded?.validators : nil
            guard var response = try get(target, validators: validators, into: file) else { return report(.stopped) }
            if response.status == 304 {
                guard let validators, !validators.isEmpty else {
                    throw FetchError("HTTP 304 to a request that was not conditional")
                }
                // The file may have changed since it was read: a 304 keeps only the file recorded.
                if isRecorded(Self.contents(destination), target) {
                    try remember(target, validators: kept(validators, after: response))
                    return report(.unchanged("304 Not Modified"))
                }
                guard let again = try get(target, validators: nil, into: file) else { return report(.stopped) }
                response = again
            }
            guard response.status == 200 else { throw FetchError("HTTP \(response.status)") }
            checking = true
            let bytes = try file.contents(count: response.bodyBytes)
            if bytes.isEmpty { throw FetchError("an empty body") }
            let checked =
                target.kind == .keys
                ? try checkKeySet(bytes, target, existing: existing)
                : try checkStatusList(bytes, target, existing: existing, inPlace: inPlaceList, keys: listKeys)
            if bytes == existing {
                try record(target, validators: response.validators, bytes: bytes, checked)
                return report(.unchanged("the same bytes"), checked.summary)
            }
            if let summary = checked.summary {
                try NoRollback.checkFresh(summary, now: Date().timeIntervalSince1970, leeway: configuration.leeway)
            }
            try file.commitFetched()
            try record(target, validators: response.validators, bytes: bytes, checked)
            return report(.updated(checked.detail), checked.summary)
        } catch {
            if error.isRefusal {
                var refused = report(.refused(error.description))
                refused.refusalReason = error.refusal
                return refused
            }
            var failed = report(.failed(error.description))
            failed.refused = checking
            failed.refusalReason = checking ? .invalid : nil
            return failed
        }
    }

    /// One GET into `file`; nil when a stop signal ended it.
    private func get(
        _ target: FetchTarget, validators: Validators?, into file: AtomicFileWriter
    ) throws(FetchError) -> HTTPSResponse? {
        do {
            return try client.get(target.url, validators: validators, into: file.descriptor)
        } catch {
            switch error {
            case .stopped: return nil
            case .failed(let why): throw FetchError(why)
            }
        }
    }

    /// A 304 may repeat only some validators: the others stay as they were.
    private func kept(_ validators: Validators, after response: HTTPSResponse) -> Validators {
        Validators(
            etag: response.validators.etag ?? validators.etag,
            lastModified: response.validators.lastModified ?? validators.lastModified,
            url: response.validators.url)
    }

    /// Whether `bytes` are those fetch recorded writing for `target` (their SHA-256).
    private func isRecorded(_ bytes: [UInt8]?, _ target: FetchTarget) -> Bool {
        guard let bytes, let digest = state.entries[target.url]?.sha256 else { return false }
        return hexadecimal(sha256(bytes)) == digest
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    /// A key set: verify's start-up rules, then no `kid` it dropped brought back.
    private func checkKeySet(_ bytes: [UInt8], _ target: FetchTarget, existing: [UInt8]?) throws(FetchError) -> Checked
    {
        let checked = try DownloadChecks.keySet(
            bytes, url: target.url, folder: folder(.keys), replacing: target.fileName)
        warnings += checked.warnings
        let history = keyHistory(target, existing: existing)
        try history.check(checked.keyIDs, readmitted: readmitted)
        let count = checked.keyIDs.count
        return Checked(detail: count == 1 ? "1 key" : "\(count) keys", keyIDs: checked.keyIDs, history: history)
    }

    /// A key set URL's `kid`s as recorded, or where none are, those of the file in place.
    private func keyHistory(_ target: FetchTarget, existing: [UInt8]?) -> KeyIDHistory {
        let entry = state.entries[target.url]
        let inPlace = existing.flatMap { try? KeySet.parse($0, file: target.url).0.keys.map(\.keyID) }
        return KeyIDHistory(current: entry?.keyIDs ?? inPlace, removed: entry?.removedKeyIDs ?? [])
    }

    /// A status list: verify's checks against `keys`, then the URL's issuer and its floor.
    private func checkStatusList(
        _ bytes: [UInt8], _ target: FetchTarget, existing: [UInt8]?, inPlace: StatusListSummary?,
        keys: Result<KeySet, FetchError>?
    ) throws(FetchError) -> Checked {
        let loaded: KeySet
        switch keys ?? DownloadChecks.keysForStatusLists(folder: folder(.keys)) {
        case .success(let keys): loaded = keys
        case .failure(let error): throw error
        }
        let summary = try DownloadChecks.statusList(
            bytes, url: target.url, keys: loaded, loader: configuration.statusListLoader)
        let entry = state.entries[target.url]
        try IssuerBinding.check(summary, recorded: entry?.issuer ?? inPlace.map { .init(iss: $0.issuer) })
        let entries = summary.list.map(\.entriesDigestHex)
        let inFile = existing.flatMap { bytes in
            inPlace.map { ($0.issuedAt, $0.list) } ?? StatusListInspection.issuedAt(of: bytes).map { ($0, nil) }
        }
        let floor = NoRollback.floor(file: inFile, recorded: (entry?.issuedAt, entry?.entriesDigest))
        try NoRollback.checkFloor(summary, entries: entries, floor: floor)
        return Checked(detail: summary.description, summary: summary, entries: entries)
    }

    /// The status list in a target's current file, for the rules and the schedule (nil when it
    /// cannot be read or no longer loads).
    private func currentList(
        _ bytes: [UInt8], _ target: FetchTarget, _ keys: Result<KeySet, FetchError>?
    ) -> StatusListSummary? {
        guard target.kind == .statusList, case .success(let keys)? = keys else { return nil }
        return try? DownloadChecks.statusList(
            bytes, url: target.url, keys: keys, loader: configuration.statusListLoader)
    }

    /// Records a 304's validators; the rest of the URL's record stays.
    private func remember(_ target: FetchTarget, validators: Validators) throws(FetchError) {
        guard var entry = state.entries[target.url] else { return }
        entry.validators = validators.withoutControlCharacters
        entry.checkedAt = Date().timeIntervalSince1970
        state.entries[target.url] = entry
        try state.save(directory: configuration.directory)
    }

    /// Records what a target's file now holds: its validators, the digest of `bytes`, a list's
    /// `iat`, issuer and entries, a key set's `kid`s and those it dropped.
    private func record(
        _ target: FetchTarget, validators: Validators, bytes: [UInt8], _ checked: Checked
    ) throws(FetchError) {
        var entry =
            state.entries[target.url]
            ?? FetchState.Entry(file: "", validators: Validators(), checkedAt: 0)
        entry.file = "\(target.kind.folder)/\(target.fileName)"
        entry.validators = validators.withoutControlCharacters
        entry.checkedAt = Date().timeIntervalSince1970
        entry.sha256 = hexadecimal(sha256(bytes))
        if let summary = checked.summary {
            entry.issuedAt = summary.issuedAt
            entry.issuer = .init(iss: summary.issuer)
            entry.entriesDigest = checked.entries
        }
        if let keyIDs = checked.keyIDs, let before = checked.history {
            let history = before.after(writing: keyIDs)
            entry.keyIDs = history.current
            entry.removedKeyIDs = history.removed
            readmitted.subtract(keyIDs)
        }
        state.entries[target.url] = entry
        try state.save(directory: configuration.directory)
    }
}

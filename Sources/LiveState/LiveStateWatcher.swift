import TokenConcurrency
import TokenVerifier

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Follows the files of the live state while a stream runs (spec §3 key rotation, §4, §4b, §4c): each
/// group of files (the key files, the revocation files, …) is reloaded in the background when
/// one of its files changes (a new file renamed into place, or rewritten) and on SIGHUP, checked
/// completely, and put in force: every group that loaded in one round (a poll, or a SIGHUP,
/// which reloads them all) is swapped in together, as one snapshot. A group that fails to load
/// leaves its part of the state in force and says why on stderr; the run goes on.
/// A ``Service``: a ``ServiceGroup`` runs it on a thread of its own, which alone touches its
/// mutable state.
package final class LiveStateWatcher: Service, @unchecked Sendable {
    /// One group of files and how to load and swap it in; `load` returns a line for stderr.
    package struct Source: Sendable {
        /// What the files hold, for messages ("keys", "revocations", …).
        package var name: String
        /// What stays in force when they fail to load ("key set", "list", …).
        package var kept: String
        /// The files, or directories standing for their regular files (``StatePaths``).
        package var files: [String]
        /// Loads the files and checks them completely; throws when they fail a check. Given the
        /// key set this round puts in force (new keys of the same round, else the keys in force).
        /// Returns the new part of the state and what was loaded, in words ("3 keys").
        package var load: @Sendable (_ keys: KeySet) throws -> (update: LiveStateUpdate, summary: String)
        /// Whether the files are loaded again whenever a new key set is put in force, changed or
        /// not (status lists: a list refused because no key verified it is tried again).
        package var reloadsWithKeys: Bool
        /// Whether the files are loaded again whenever new trust anchors are put in force (status
        /// lists: a list refused because its chain did not validate is tried again).
        package var reloadsWithAnchors: Bool
        /// ``load`` given the trust anchors this round puts in force too (new anchors of the same
        /// round, else those in force; nil: none configured). Used in place of ``load`` when set.
        package var loadWithAnchors:
            (@Sendable (_ keys: KeySet, _ anchors: TrustAnchors?) throws -> (update: LiveStateUpdate, summary: String))?

        /// A group loaded with the key set and the trust anchors this round puts in force.
        package init(
            name: String, kept: String, files: [String], reloadsWithKeys: Bool = false, reloadsWithAnchors: Bool,
            loadWithAnchors:
                @escaping @Sendable (_ keys: KeySet, _ anchors: TrustAnchors?) throws -> (
                    update: LiveStateUpdate, summary: String
                )
        ) {
            self.init(name: name, kept: kept, files: files, reloadsWithKeys: reloadsWithKeys) { keys in
                try loadWithAnchors(keys, nil)
            }
            self.reloadsWithAnchors = reloadsWithAnchors
            self.loadWithAnchors = loadWithAnchors
        }

        package init(
            name: String, kept: String, files: [String], reloadsWithKeys: Bool = false,
            load: @escaping @Sendable (_ keys: KeySet) throws -> (update: LiveStateUpdate, summary: String)
        ) {
            self.name = name
            self.kept = kept
            self.files = files
            self.reloadsWithKeys = reloadsWithKeys
            self.reloadsWithAnchors = false
            self.loadWithAnchors = nil
            self.load = load
        }
    }

    private let sources: [Source]
    private let verifier: Verifier
    private let interval: Double
    private let log: @Sendable (String) -> Void
    /// Per source: the files' signatures as last loaded, and as last seen (touched only by
    /// ``run(until:)``'s thread).
    private var seen: [(loaded: [FileState], candidate: [FileState])]

    /// The files' signatures taken before the state was loaded: a watcher made with them reloads
    /// a file that changed while the state was loading, at its first poll, instead of taking the
    /// change for what was loaded.
    package struct Baseline: Sendable {
        fileprivate let states: [[FileState]]
    }

    /// The signatures of `sources`' files now: take them before loading the state.
    package static func baseline(of sources: [Source]) -> Baseline {
        Baseline(states: sources.map(Self.signatures))
    }

    /// A watcher polling every `interval` seconds (0: files are not polled, only SIGHUP reloads),
    /// whose files were loaded as `baseline` found them (nil: as they are now).
    package init(
        verifier: Verifier, sources: [Source], interval: Double = 0.25, baseline: Baseline? = nil,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.verifier = verifier
        self.sources = sources
        self.interval = interval
        self.log = log
        let signatures =
            baseline.flatMap { $0.states.count == sources.count ? $0.states : nil } ?? sources.map(Self.signatures)
        seen = signatures.map { ($0, $0) }
    }

    /// Watches (polls every interval; without polling, looks for a SIGHUP every 0.1 s) until
    /// `stop`; a reload under way finishes first.
    package func run(until stop: StopSignal) {
        let period = interval > 0 ? interval : 0.1
        while !stop.wait(seconds: period) { poll() }
    }

    private func poll() {
        let signalled = ProcessSignals.takeReloadRequest()
        var due: [(Source, reason: String)] = []
        for (index, source) in sources.enumerated() {
            if interval <= 0 {
                if signalled { due.append((source, "SIGHUP")) }
                continue
            }
            let current = Self.signatures(of: source)
            // A change is loaded once it has held still for one interval, so that a file still
            // being written in place is not read half-way.
            let state = seen[index]
            if signalled || (current != state.loaded && current == state.candidate) {
                seen[index].loaded = current
                due.append((source, signalled ? "SIGHUP" : "file changed"))
            }
            seen[index].candidate = current
        }
        reload(due)
    }

    /// Loads the groups now and puts those that load in force, in one swap. The loading runs at
    /// the lowest CPU priority (nice 19 for the watcher's thread, restored after), so that a reload of
    /// millions of entries takes what the verifying threads leave rather than their time.
    package func reload(_ due: [(Source, reason: String)]) {
        guard !due.isEmpty else { return }
        let thread: id_t = 0  // on Linux the nice value is per thread: 0 is the calling one
        let priority = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread)
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, 19)
        defer { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, priority) }
        var update = LiveStateUpdate()
        var loaded: [String] = []
        load(due, into: &update, &loaded)
        if update.keys != nil || update.trustAnchors != nil {
            // A new key set or new anchors: the groups loaded with them (status lists) are loaded
            // again, changed or not, so that a list nothing verified before is tried again.
            let keysChanged = update.keys != nil
            let following = sources.filter { source in
                (keysChanged && source.reloadsWithKeys || update.trustAnchors != nil && source.reloadsWithAnchors)
                    && !due.contains { $0.0.name == source.name }
            }
            let reason = keysChanged ? "key set changed" : "trust anchors changed"
            load(following.map { ($0, reason) }, into: &update, &loaded)
        }
        guard !loaded.isEmpty else { return }
        let noticed = Set(verifier.statusListNotices)
        verifier.apply(update)
        for line in loaded { log(line) }
        // A key rotation puts out of force the lists its keys no longer verify, and new files may
        // tie with old ones: say which, once.
        for notice in verifier.statusListNotices where !noticed.contains(notice) { log("tokenverify: \(notice)") }
    }

    /// Loads each group of `due` (with the key set this round puts in force), merging what loads
    /// into `update` and its stderr line into `loaded`; a group that fails says why at once.
    private func load(_ due: [(Source, reason: String)], into update: inout LiveStateUpdate, _ loaded: inout [String]) {
        for (source, reason) in due {
            do {
                let keys = update.keys ?? verifier.keys
                let (part, summary) =
                    try source.loadWithAnchors.map { try $0(keys, update.trustAnchors ?? verifier.trustAnchors) }
                    ?? source.load(keys)
                update = update.merging(part)
                loaded.append("tokenverify: \(source.name) reloaded (\(reason)): \(summary)")
            } catch {
                log(
                    "tokenverify: \(source.name) not reloaded (\(reason)), the previous \(source.kept) stays in force: \(error)"
                )
            }
        }
    }

    /// What tells whether a source's files changed: each file's path and signature, a
    /// directory's files included (so a file added or removed is a change).
    static func signatures(of source: Source) -> [FileState] {
        StatePaths.expand(source.files).map { FileState(path: $0, signature: FileSignature(path: $0)) }
    }

    struct FileState: Equatable, Sendable {
        var path: String
        var signature: FileSignature?
    }
}

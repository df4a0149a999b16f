import Foundation
import TokenConcurrency
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// How `fetch` downloads.
package struct FetchConfiguration: Sendable {
    /// The output directory: `keys/`, `status-lists/` and the state file go here.
    package var directory: String
    /// PEM certificates trusted beside the system's.
    package var caFile: String?
    /// Seconds each URL may take, redirects included.
    package var timeout: Double
    /// A larger body fails the download.
    package var maxBodyBytes: Int
    /// Checks a status list as `verify` would (by default, `verify`'s own loader).
    package var statusListLoader: StatusListLoader
    /// Seconds a list's `iat` may lie in the future before it is refused (spec §7, "No rollback").
    package var leeway: Double
    /// `kid`s a key set may bring back although an earlier key set of its URL dropped them
    /// (`--readmit-kid`): each once, until a key set holding it is written.
    package var readmitKeyIDs: Set<String>

    package init(
        directory: String, caFile: String? = nil, timeout: Double = 30, maxBodyBytes: Int = 256 << 20,
        statusListLoader: @escaping StatusListLoader = standardStatusListLoader(), leeway: Double = 60,
        readmitKeyIDs: Set<String> = []
    ) {
        self.directory = directory
        self.caFile = caFile
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.statusListLoader = statusListLoader
        self.leeway = leeway
        self.readmitKeyIDs = readmitKeyIDs
    }
}

/// What became of one URL.
package struct FetchReport: Sendable {
    package enum Outcome: Sendable, Equatable {
        /// A new file was checked and renamed into place; the detail says what it holds.
        case updated(String)
        /// The publisher answered 304, or sent the bytes the file already holds.
        case unchanged(String)
        /// Nothing was written: why.
        case failed(String)
        /// A list that passed verify's checks was not written by the no-rollback rule (older than
        /// the list in place, expired, or issued in the future): why.
        case refused(String)
        /// SIGINT or SIGTERM arrived during the download.
        case stopped
    }

    /// The URL and its file.
    package let target: FetchTarget
    /// What became of it.
    package let outcome: Outcome
    /// The status list now in the target's file, when it is one and could be read.
    package let statusList: StatusListSummary?
    /// A failure after the body arrived: the download failed the checks `verify` would make.
    package var refused = false
    /// Why the file was kept rather than the download written: spec §7's rule, or `.invalid`
    /// for a download that failed verify's checks; nil otherwise.
    package var refusalReason: RefusalReason?

    package init(target: FetchTarget, outcome: Outcome, statusList: StatusListSummary?) {
        self.target = target
        self.outcome = outcome
        self.statusList = statusList
    }

    /// The path of the target's file, relative to the output directory.
    package var file: String { "\(target.kind.folder)/\(target.fileName)" }

    /// One line for stderr.
    package var line: String {
        switch outcome {
        case .updated(let detail): return "\(target.url): wrote \(file) (\(detail))"
        case .unchanged(let why): return "\(target.url): unchanged (\(why)), \(file) stays"
        case .failed(let why): return "\(target.url) failed: \(why); \(file) is left as it was"
        case .refused(let why): return "\(target.url) refused: \(why); \(file) is left as it was"
        case .stopped: return "\(target.url): stopped by a signal; \(file) is left as it was"
        }
    }
}

/// Downloads key sets and Status List Tokens into the output directory, each checked as `verify`
/// would check it before it replaces the previous file; one instance per directory (it holds a
/// lock on it) and per thread.
package final class Fetcher {
    /// How it downloads.
    package let configuration: FetchConfiguration
    let client: HTTPSClient
    var state: FetchState
    private let lockDescriptor: Int32
    /// Warnings of the loaders (a private member in a key set) not yet taken.
    var warnings: [String] = []
    /// The `kid`s still readmitted (``FetchConfiguration/readmitKeyIDs`` less those written since).
    var readmitted: Set<String>

    /// Creates the output folders, takes the directory's lock and removes temporary files a
    /// killed run left behind.
    package init(configuration: FetchConfiguration) throws(FetchUsageError) {
        self.configuration = configuration
        client = try HTTPSClient(
            caFile: configuration.caFile, timeout: configuration.timeout,
            maxBodyBytes: configuration.maxBodyBytes)
        let directory = configuration.directory
        try Self.makeFolder(directory, following: true)
        let lockFile = "\(directory)/.fetch.lock"
        lockDescriptor = open(lockFile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard lockDescriptor >= 0 else {
            if errno == ELOOP { throw FetchUsageError("--out: \(lockFile) is a symbolic link (refused)") }
            throw FetchUsageError("--out: cannot write in \(directory): \(errnoText())")
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(lockDescriptor)
            throw FetchUsageError("--out: another tokenverify fetch is writing \(directory)")
        }
        do {
            for kind in [FetchTarget.Kind.keys, .statusList] {
                try Self.makeFolder("\(directory)/\(kind.folder)", following: false)
            }
        } catch {
            close(lockDescriptor)
            throw error
        }
        do {
            state = try FetchState.load(directory: directory)
        } catch {
            close(lockDescriptor)
            throw FetchUsageError("--out: \(error.description)")
        }
        readmitted = configuration.readmitKeyIDs
        AtomicFileWriter.removeLeftovers(in: directory, prefix: AtomicFileWriter.fetchPrefix)
        for kind in [FetchTarget.Kind.keys, .statusList] {
            AtomicFileWriter.removeLeftovers(in: folder(kind), prefix: AtomicFileWriter.fetchPrefix)
        }
    }

    deinit { close(lockDescriptor) }

    /// Makes `folder` unless it is a directory already; a symbolic link is refused unless
    /// `following` (the output directory itself is the user's to choose; its folders are not).
    private static func makeFolder(_ folder: String, following: Bool) throws(FetchUsageError) {
        var info = stat()
        if (following ? stat(folder, &info) : lstat(folder, &info)) == 0 {
            if info.st_mode & S_IFMT == S_IFLNK {
                throw FetchUsageError("--out: \(folder) is a symbolic link (refused: nothing is written through one)")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw FetchUsageError("--out: \(folder) is not a directory") }
        } else if mkdir(folder, 0o777) != 0 {
            throw FetchUsageError("--out: cannot create \(folder): \(errnoText())")
        }
    }

    /// The loaders' warnings since the last call (a private member in a key set, for stderr).
    package func takeWarnings() -> [String] {
        defer { warnings = [] }
        return warnings
    }

    /// Fetches every target: the key sets first, then the status lists, checked against the key
    /// set the key folder then holds. A failure does not stop the others; a stop signal does
    /// (the targets not yet fetched are reported stopped).
    package func fetch(_ targets: [FetchTarget]) -> [FetchReport] {
        var reports: [FetchReport] = []
        func stopped(_ target: FetchTarget) -> FetchReport? {
            ProcessSignals.stopRequested ? FetchReport(target: target, outcome: .stopped, statusList: nil) : nil
        }
        for target in targets where target.kind == .keys {
            reports.append(stopped(target) ?? fetch(target, listKeys: nil))
        }
        let lists = targets.filter { $0.kind == .statusList }
        if !lists.isEmpty {
            let keys = DownloadChecks.keysForStatusLists(folder: folder(.keys))
            for target in lists { reports.append(stopped(target) ?? fetch(target, listKeys: keys)) }
        }
        return reports
    }

    func folder(_ kind: FetchTarget.Kind) -> String { "\(configuration.directory)/\(kind.folder)" }
}

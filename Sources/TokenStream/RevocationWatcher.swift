import Foundation
import TokenVerifier

/// Reloads revocation files in the background when they change (a new file renamed into place,
/// or rewritten) and on SIGHUP, and swaps the verifier's snapshot atomically. A file that fails to
/// load leaves the old snapshot in force and says so on stderr.
public final class RevocationWatcher: @unchecked Sendable {
    private let files: [String]
    private let verifier: TokenVerifier
    private let interval: Double
    private let log: @Sendable (String) -> Void
    private var signatures: [FileSignature?]
    private var candidate: [FileSignature?]
    private var running = true
    private let lock = NSLock()

    struct FileSignature: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int, modifiedNanoseconds: Int
    }

    public init(files: [String], verifier: TokenVerifier, interval: Double = 0.25, log: @escaping @Sendable (String) -> Void) {
        self.files = files
        self.verifier = verifier
        self.interval = interval
        self.log = log
        self.signatures = files.map(Self.signature)
        self.candidate = signatures
    }

    /// Starts polling on a background thread (every `interval` seconds; with an interval of 0,
    /// files are not polled and only SIGHUP reloads them).
    public func start() {
        let thread = Thread { [self] in
            while isRunning {
                Thread.sleep(forTimeInterval: interval > 0 ? interval : 0.1)
                let signalled = ProcessSignals.takeReloadRequest()
                if interval <= 0 {
                    if signalled { reload(reason: "SIGHUP") }
                    continue
                }
                let current = files.map(Self.signature)
                // A change is loaded once it has held still for one interval, so that a file
                // still being written in place is not read half-way.
                if signalled || (current != signatures && current == candidate) {
                    signatures = current
                    reload(reason: signalled ? "SIGHUP" : "file changed")
                }
                candidate = current
            }
        }
        ProcessSignals.startWithSignalsBlocked(thread)
    }

    public func stop() {
        lock.lock()
        running = false
        lock.unlock()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// Loads the files now and swaps the snapshot if they load.
    public func reload(reason: String) {
        do {
            let list = try RevocationList.load(files: files)
            verifier.replaceRevocations(list)
            log("tokenverify: revocations reloaded (\(reason)): \(counted(list.count, "entry", "entries"))")
        } catch {
            log("tokenverify: revocations not reloaded (\(reason)), the previous list stays in force: \(error)")
        }
    }

    static func signature(_ path: String) -> FileSignature? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileSignature(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                             modified: Int(status.st_mtim.tv_sec), modifiedNanoseconds: Int(status.st_mtim.tv_nsec))
    }
}

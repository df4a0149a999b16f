import TokenVerifier

/// The Status List Token files of a run (spec §4c), each one generation of a list: loaded at
/// start-up, and on reload each file again only when it changed. A file that fails on reload keeps
/// its previous generation in force (and says why). A file gone, or rewritten with an older list,
/// is loaded as it is: the verifier's floors (``StatusListFloors``) keep the group from stepping
/// back. Touched only at start-up and then on the watcher's queue.
final class StatusListFiles: @unchecked Sendable {
    /// Files, or directories standing for their regular files.
    let paths: [String]
    /// The largest inflated list accepted, in bytes.
    let maxInflatedBytes: Int
    private let options: VerificationOptions
    /// Per file: its signature when loaded, and the list it held.
    private var loaded: [String: (signature: FileSignature?, list: StatusListToken)] = [:]

    init(paths: [String], maxInflatedBytes: Int, options: VerificationOptions) {
        self.paths = paths
        self.maxInflatedBytes = maxInflatedBytes
        self.options = options
    }

    /// Loads every file that changed since the last load, checked against `keys` and `anchors`
    /// (a list that carries a chain is checked by it where anchors are given, spec §3b). At
    /// start-up (`strict`) the first failure throws; later a failure is reported through `warn`
    /// and the file's previous generation stays.
    func load(keys: KeySet, anchors: TrustAnchors?, strict: Bool, warn: (String) -> Void) throws -> StatusListSet {
        var next: [String: (signature: FileSignature?, list: StatusListToken)] = [:]
        var order: [String] = []
        for file in StatePaths.expand(paths) {
            let signature = FileSignature(path: file)
            if let previous = loaded[file], previous.signature == signature, signature != nil {
                next[file] = previous
                order.append(file)
                continue
            }
            do {
                let list = try StatusListToken.load(
                    file: file, keys: keys, anchors: anchors, options: options, maxInflatedBytes: maxInflatedBytes)
                next[file] = (signature, list)
                order.append(file)
            } catch {
                if strict { throw error }
                if let previous = loaded[file] {
                    next[file] = previous
                    order.append(file)
                    warn("tokenverify: status list not reloaded, its previous generation stays in force: \(error)")
                } else {
                    warn("tokenverify: status list not loaded: \(error)")
                }
            }
        }
        loaded = next
        return StatusListSet(lists: order.map { next[$0]!.list })
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What tells a changed file from an unchanged one: its device, inode, size and modification time.
struct FileSignature: Equatable {
    var device: UInt64, inode: UInt64, size: Int64, modified: Int, modifiedNanoseconds: Int

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = Int(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
    }
}

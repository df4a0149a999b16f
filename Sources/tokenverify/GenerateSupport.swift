import Dispatch
import Foundation
import TokenConcurrency
import TokenFormats
import TokenGen

/// Checks `gen --out` before any work: a directory (created if missing) that this user may write
/// into and that holds nothing unless `--force` (then the old set's files are removed first, so
/// that an interrupted run cannot leave a mixture of two sets).
enum OutputDirectory {
    struct Problem: Error, CustomStringConvertible { var description: String }

    static func prepare(_ path: String, force: Bool) throws(Problem) {
        var status = stat()
        if stat(path, &status) != 0 {
            guard errno == ENOENT else {
                throw Problem(description: "--out \(path): \(errnoText())")
            }
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw Problem(description: "--out \(path): cannot create the directory: \(error.localizedDescription)")
            }
            return
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw Problem(description: "--out \(path) is a file, not a directory")
        }
        guard access(path, W_OK | X_OK) == 0 else { throw Problem(description: "--out \(path) is not writable") }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        guard entries.isEmpty || force else {
            throw Problem(
                description:
                    "--out \(path) is not empty (\(entries.count) entries); use --force to replace the set in it")
        }
        if force {
            for name in TokenSetFiles.names + TokenSetFiles.stepNames
            where entries.contains(name) || entries.contains(name + TokenSetFiles.partialSuffix) {
                unlink(path + "/" + name)
                unlink(path + "/" + name + TokenSetFiles.partialSuffix)
            }
        }
    }
}

/// The progress line of `gen` on a terminal: tokens done, rate and time left, at most once a second.
final class GenerationProgress {
    private let total: Int
    private var lastPrinted = -1.0

    init(total: Int) { self.total = total }

    func update(_ lines: Int, _ seconds: Double) {
        guard seconds - lastPrinted >= 1 || lines == total else { return }
        lastPrinted = seconds
        let rate = seconds > 0 ? Double(lines) / seconds : 0
        let left = rate > 0 ? Int(saturating: Double(total - lines) / rate) : 0
        let percent = total > 0 ? lines * 100 / total : 100
        let text =
            "\u{1B}[2K\rtokenverify gen: \(lines)/\(total) tokens (\(percent)%), \(Int(saturating: rate)) tokens/s, \(left / 60)m\(left % 60)s left"
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    func clear() { _ = "\u{1B}[2K\r".withCString { write(2, $0, 5) } }
}

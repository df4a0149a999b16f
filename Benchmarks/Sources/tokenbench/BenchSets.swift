import Foundation
import TokenGen
import TokenVerifier

/// A generated set on disk, made by the same streaming generator as `tokenverify gen`: the
/// benchmark never holds a whole set in memory, so `--count 10000000` fits any machine.
struct SetOnDisk {
    let directory: String
    let lines: Int
    /// The public key set (JWKS text).
    let keySet: String
    var requests: String { directory + "/requests.jsonl" }
    var expected: String { directory + "/expected.jsonl" }
    var revocations: String { directory + "/revocations.jsonl" }

    /// Generates `spec` into `directory` on `threads` threads and logs the rate and resident memory.
    static func generate(_ spec: TokenSetSpec, name: String, into directory: String, threads: Int) throws -> SetOnDisk {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let summary = try TokenSetFiles.write(spec, to: directory, threads: threads, writeTokens: false)!
        log(
            "  generated \(summary.lines) \(name) requests in \(String(format: "%.1f", summary.seconds)) s "
                + "(\(Int(Double(summary.lines) / summary.seconds)) tokens/s on \(threads) threads; peak resident \(Resident.peakMiB()) MiB)"
        )
        let keys = try String(contentsOfFile: directory + "/keys.jwks", encoding: .utf8)
        return SetOnDisk(directory: directory, lines: summary.lines, keySet: keys)
    }

    /// The first `count` request lines (for the latency runs), cycling when the set is shorter.
    func firstRequests(_ count: Int) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        lines.reserveCapacity(count)
        LineFile.forEach(requests, limit: min(count, self.lines)) { lines.append(Array($0)) }
        let distinct = lines.count
        while lines.count < count { lines.append(lines[lines.count % distinct]) }
        return lines
    }

    /// The first request line.
    var firstRequest: String { String(decoding: firstRequests(1)[0], as: UTF8.self) }
}

/// Reads a file of lines in blocks of 1 MiB, a line at a time.
struct LineIterator {
    private let handle: FileHandle?
    private var pending: [UInt8] = []
    private var start = 0
    private var ended = false

    init(path: String) { handle = FileHandle(forReadingAtPath: path) }

    /// The next line without its newline, or nil at the end.
    mutating func next() -> [UInt8]? {
        while true {
            if let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = end + 1 }
                return Array(pending[start..<end])
            }
            if ended || handle == nil {
                guard start < pending.count else { return nil }
                defer { start = pending.count }
                return Array(pending[start...])
            }
            pending.removeSubrange(..<start)
            start = 0
            let block = handle!.readData(ofLength: 1 << 20)
            if block.isEmpty {
                ended = true
                try? handle!.close()
            } else {
                pending += block
            }
        }
    }
}

enum LineFile {
    /// Calls `body` with each line (without its newline), up to `limit` lines.
    static func forEach(_ path: String, limit: Int = .max, _ body: ([UInt8]) throws -> Void) rethrows {
        var lines = LineIterator(path: path)
        var seen = 0
        while seen < limit, let line = lines.next() {
            try body(line)
            seen += 1
        }
    }

    /// Writes the first `distinct` lines of each of `sources` over and over (`rounds` times, at
    /// most `total` lines) into the paired `targets`, streaming.
    static func repeatPrefix(sources: [String], targets: [String], distinct: Int, rounds: Int, total: Int) throws {
        for (source, target) in zip(sources, targets) {
            _ = FileManager.default.createFile(atPath: target, contents: nil)
            guard let out = FileHandle(forWritingAtPath: target) else { throw CocoaError(.fileWriteUnknown) }
            var written = 0
            var buffer: [UInt8] = []
            for _ in 0..<rounds where written < total {
                forEach(source, limit: min(distinct, total - written)) { line in
                    buffer += line
                    buffer.append(UInt8(ascii: "\n"))
                    written += 1
                    if buffer.count >= 1 << 20 {
                        out.write(Data(buffer))
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
            }
            out.write(Data(buffer))
            try out.close()
        }
    }

    /// Compares answer lines with `expected.jsonl` lines in order (valid, or the same reason).
    /// Returns the answers, the expected lines, the mismatches and the expected verdicts that
    /// need the signature check (valid, bad_signature, command_not_permitted).
    static func compareVerdicts(
        answers: String, expected: String
    ) -> (answers: Int, expected: Int, mismatches: Int, reachingSignature: Int) {
        var answerLines = LineIterator(path: answers)
        var expectedLines = LineIterator(path: expected)
        var answerCount = 0
        var expectedCount = 0
        var mismatches = 0
        var reachingSignature = 0
        let reasonKey = Array("\"reason\":\"".utf8)
        let validTrue = Array("\"valid\":true".utf8)
        while true {
            let answer = answerLines.next()
            let want = expectedLines.next()
            if answer == nil && want == nil { break }
            if answer != nil { answerCount += 1 }
            guard let want else {
                mismatches += 1
                continue
            }
            expectedCount += 1
            let wantedReason = reason(in: want, key: reasonKey)
            if wantedReason == nil || wantedReason == "bad_signature" || wantedReason == "command_not_permitted" {
                reachingSignature += 1
            }
            guard let answer else {
                mismatches += 1
                continue
            }
            let matches = wantedReason.map { reason(in: answer, key: reasonKey) == $0 } ?? contains(answer, validTrue)
            if !matches { mismatches += 1 }
        }
        return (answerCount, expectedCount, mismatches, reachingSignature)
    }

    private static func reason(in line: [UInt8], key: [UInt8]) -> String? {
        guard let start = range(of: key, in: line)?.upperBound,
            let end = line[start...].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        return String(decoding: line[start..<end], as: UTF8.self)
    }

    private static func contains(_ line: [UInt8], _ key: [UInt8]) -> Bool { range(of: key, in: line) != nil }

    private static func range(of key: [UInt8], in line: [UInt8]) -> Range<Int>? {
        guard line.count >= key.count else { return nil }
        for start in 0...(line.count - key.count)
        where line[start] == key[0] && line[start..<start + key.count].elementsEqual(key) {
            return start..<start + key.count
        }
        return nil
    }
}

/// This process's resident memory, from /proc/self/status.
enum Resident {
    /// The peak resident set (VmHWM) so far, in MiB.
    static func peakMiB() -> Int { field("VmHWM:") / 1024 }

    /// The resident set now (VmRSS), in bytes.
    static func currentBytes() -> Int { field("VmRSS:") * 1024 }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
}

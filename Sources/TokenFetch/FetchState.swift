import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What `fetch` remembers between runs, in `DIR/.fetch-state.json` (outside the folders `verify`
/// reads): for each URL, its file and the validators of its last good response.
struct FetchState: Codable {
    struct Entry: Codable {
        var file: String
        var validators: Validators
        /// When the file was last written or confirmed (a 304), as a NumericDate.
        var checkedAt: Double
        /// The `iat` of the status list last written to the file (for the no-rollback rule when
        /// that file no longer loads).
        var issuedAt: Double?
    }

    var entries: [String: Entry] = [:]

    /// The state in `directory`, or an empty one when there is none or it cannot be read (the
    /// next requests are then unconditional: never wrong, only less polite).
    static func load(directory: String) -> FetchState {
        guard let data = FileManager.default.contents(atPath: path(in: directory)),
            let state = try? JSONDecoder().decode(FetchState.self, from: data)
        else { return FetchState() }
        return state
    }

    /// Writes the state through a temporary file renamed into place.
    func save(directory: String) throws(FetchError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw FetchError("cannot encode the fetch state: \(error)") }
        let file = try TemporaryFile(in: directory, for: "state")
        var done = 0
        while done < data.count {
            let written = data.withUnsafeBytes { write(file.fd, $0.baseAddress! + done, $0.count - done) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw FetchError("cannot write \(file.path): \(errnoText())") }
            done += written
        }
        try file.commit(as: FetchState.path(in: directory))
    }

    static func path(in directory: String) -> String { "\(directory)/.fetch-state.json" }
}

import ArgumentParser
import LiveState
import TokenVerifier

/// The rules every command's file options share (spec §3b, §7): a file option names a regular
/// file (or, where one is allowed, a folder of them), read to at most a stated size
/// (``FileLimit``); a FIFO, a device, a socket or an oversized file stops the command (exit
/// status 2) naming the file and what it is.
enum FileOptionRules {
    /// The bytes of the file `path` (`what` names it in the message: `the key file`), or the
    /// command stops naming the file and why.
    static func read(_ path: String, limit: Int = FileLimit.keyFile, what: String = "the file") -> [UInt8] {
        do {
            return try readFileBytes(path, limit: limit)
        } catch {
            ConfigurationError(description: "\(path): cannot read \(what): \(error.reason)").exit()
        }
    }

    /// The `--trust-anchors [ENV=]PATH` arguments, or a usage error naming an unknown tag.
    static func trustAnchorPaths(_ arguments: [String]) throws -> [TrustAnchorPath] {
        try arguments.map { argument in
            do {
                return try TrustAnchorPath(parsing: argument)
            } catch {
                throw ValidationError("--trust-anchors \(argument): \(error)")
            }
        }
    }
}
